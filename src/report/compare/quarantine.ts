/** Questions and searches with this tag are known to be flaky: every report shows them, no gate judges them. */
export const QUARANTINE_TAG = 'quarantine';
