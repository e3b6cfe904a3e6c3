// The GraphQL reply's shapes the product version is read from (wire-notes.md: "The product version").
import { describe, expect, it } from 'vitest';
import { versionOf } from '../../src/deepsearch/product-version.js';

describe('the product version in a GraphQL reply', () => {
  it.each(['6.9.2', '7.0.1', '6.4.0_257409_2024-07-01_6.4-0f2c9a1b', '0.0.0+dev'])('reads %s', (v) => {
    expect(versionOf({ data: { site: { productVersion: v } } })).toEqual({ version: v });
  });

  it('is unknown, saying why, on errors, no data, another shape or text that is no version', () => {
    expect(versionOf({ data: null, errors: [{ message: 'not authenticated' }, { message: 'again' }] })).toEqual({ unknown: 'POST /.api/graphql: not authenticated; again' });
    expect(versionOf({ data: { site: null } })).toEqual({ unknown: 'POST /.api/graphql: no data.site.productVersion' });
    expect(versionOf({ data: { site: { productVersion: 692 } } })).toMatchObject({ unknown: expect.stringContaining('not a GraphQL reply') });
    expect(versionOf(['6.9.2'])).toMatchObject({ unknown: expect.stringContaining('not a GraphQL reply') });
    expect(versionOf({ data: { site: { productVersion: '6.9.2 <b>beta</b>' } } })).toMatchObject({ unknown: expect.stringContaining('is not a version') });
    expect(versionOf({ data: { site: { productVersion: '' } } })).toMatchObject({ unknown: expect.stringContaining('is not a version') });
  });
});
