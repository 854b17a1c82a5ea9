// Telling a log from code: build, CI and service logs are shown as plain
// text. highlight.js's auto-detection scores them as some language (a build
// log reads as Bash), and colouring a log by a guessed grammar misleads.

/** How many non-empty lines from the start are looked at. */
const SAMPLE_LINES = 200;

/** Line starts that mark a log line: a time, a level, a build tool's own prefix. */
const LOG_LINE = new RegExp(
  [
    // 2026-11-28T02:18:38Z, 2026-11-28 02:18:38,123, 2026/11/28 02:18
    String.raw`^\W{0,3}\d{4}[-/]\d{2}[-/]\d{2}[T ]\d{2}:\d{2}`,
    // 02:18:38 or [02:18:38.123]
    String.raw`^\W{0,3}\d{1,2}:\d{2}:\d{2}`,
    // syslog: Nov 28 02:18:38
    String.raw`^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d{2}:\d{2}`,
    // dmesg: [   12.345678]
    String.raw`^\[\s*\d+\.\d+\]`,
    // levels: INFO, [WARN], E1128, level=error
    String.raw`^\W{0,2}(TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|FATAL|CRITICAL)\b`,
    String.raw`\blevel=(trace|debug|info|warn|warning|error|fatal)\b`,
    // build tools: cargo, make, npm, CI runners, compilers' "file:line:" diagnostics
    String.raw`^\s*(Compiling|Checking|Finished|Running|Downloaded|Downloading|Updating|Fresh|Building|Installing|Fetching|Resolving) \S`,
    String.raw`^make(\[\d+\])?: `,
    String.raw`^npm (ERR!|WARN|notice)`,
    String.raw`^##\[(group|endgroup|error|warning)\]`,
    String.raw`^(Step|STEP) \d+/\d+`,
    String.raw`^#\d+ \[`,
    String.raw`^[\w./-]+:\d+:(\d+:)? (error|warning|note)\b`,
  ].join('|'),
);

/**
 * Whether `text` reads as a log: a third or more of its first non-empty
 * lines start like log lines (with at least 5 such lines).
 */
export function looksLikeLog(text) {
  let seen = 0;
  let matched = 0;
  let start = 0;
  while (start < text.length && seen < SAMPLE_LINES) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, Math.min(end, start + 400));
    start = end + 1;
    if (!line.trim()) continue;
    seen++;
    if (LOG_LINE.test(line)) matched++;
  }
  return matched >= 5 && matched * 3 >= seen;
}
