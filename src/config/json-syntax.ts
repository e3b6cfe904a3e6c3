/** Thrown inside the scanner to unwind to the offset of the first error. */
class SyntaxAt {
  constructor(readonly offset: number) {}
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * Offset of the first JSON syntax error in `text`, or undefined when it is valid JSON. Node 20's
 * JSON.parse leaves the position out of some messages ("Unexpected token"); this finds it.
 */
export function jsonErrorOffset(text: string): number | undefined {
  let i = 0;
  const fail = (): never => {
    throw new SyntaxAt(i);
  };
  const skipSpace = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const string = () => {
    i++;
    while (i < text.length) {
      const c = text[i]!;
      if (c === '"') {
        i++;
        return;
      }
      if (c < ' ') fail();
      if (c === '\\') {
        i++;
        if (text[i] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail();
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text[i] ?? 'x')) {
          fail();
        }
      }
      i++;
    }
    fail();
  };
  const list = (close: string, item: () => void) => {
    i++;
    skipSpace();
    if (text[i] === close) {
      i++;
      return;
    }
    for (;;) {
      item();
      skipSpace();
      if (text[i] === close) {
        i++;
        return;
      }
      if (text[i] !== ',') fail();
      i++;
    }
  };
  const value = (): void => {
    skipSpace();
    const c = text[i];
    if (c === '{') {
      list('}', () => {
        skipSpace();
        if (text[i] !== '"') fail();
        string();
        skipSpace();
        if (text[i] !== ':') fail();
        i++;
        value();
      });
    } else if (c === '[') {
      list(']', value);
    } else if (c === '"') {
      string();
    } else {
      NUMBER.lastIndex = i;
      const literal = ['true', 'false', 'null'].find((word) => text.startsWith(word, i));
      if (literal) i += literal.length;
      else if (NUMBER.test(text)) i = NUMBER.lastIndex;
      else fail();
    }
  };
  try {
    value();
    skipSpace();
    if (i < text.length) fail();
    return undefined;
  } catch (error) {
    if (error instanceof SyntaxAt) return error.offset;
    throw error;
  }
}
