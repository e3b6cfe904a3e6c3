import MarkdownIt from 'markdown-it';
import { redact } from '../redact.js';
import { SafeHtml } from './html.js';

// Answers are Markdown written by a model and relayed by a remote server: rendered with raw HTML off (any
// tag shows as text), links only to http(s), relative or anchor addresses (markdown-it leaves a link whose
// address it refuses as its plain text, so the text stays visible), and every link opening apart from the
// viewer without its referrer. The page's Content-Security-Policy is the second wall.

const markdown = new MarkdownIt({ html: false, linkify: true, typographer: false });

/** http(s), or an address with no scheme of its own (relative, an anchor). */
markdown.validateLink = (url: string) => {
  const address = url.trim().toLowerCase();
  return /^https?:/.test(address) || !/^[a-z][a-z0-9+.-]*:/.test(address);
};

const defaultLinkOpen = markdown.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
markdown.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  const token = tokens[idx]!;
  token.attrSet('rel', 'noopener noreferrer nofollow');
  token.attrSet('target', '_blank');
  return defaultLinkOpen(tokens, idx, options, env, self);
};
// Images would load from anywhere the model names: shown as links instead.
markdown.renderer.rules.image = (tokens, idx) => {
  const token = tokens[idx]!;
  const src = String(token.attrGet('src') ?? '');
  const alt = String(token.content || src);
  return `<a href="${markdown.utils.escapeHtml(src)}" rel="noopener noreferrer nofollow" target="_blank">${markdown.utils.escapeHtml(alt)}</a>`;
};

// Aligned table cells carry an inline style, which the page's policy refuses: a class instead.
for (const rule of ['th_open', 'td_open'] as const) {
  markdown.renderer.rules[rule] = (tokens, idx, options, _env, self) => {
    const token = tokens[idx]!;
    const align = /text-align:(left|right|center)/.exec(String(token.attrGet('style') ?? ''))?.[1];
    token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'style');
    if (align) token.attrJoin('class', `align-${align}`);
    return self.renderToken(tokens, idx, options);
  };
}

export function renderMarkdown(text: string): SafeHtml {
  const clean = redact(text).replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
  return new SafeHtml(markdown.render(clean));
}
