// Observations (agenttools/2, docs/adapter-protocol.md "Observations") built from pi's own results.
//
// pi 0.73.1 answers with model-facing text and, for some tools, a `details` object. Each function
// here reads that answer the way pi wrote it and states it in the canonical shape. This is
// mapping, not fixing: what pi showed is reported as shown (a BOM pi shows is in line 1, a count
// pi states is the count reported, "bytes" pi counted in UTF-16 code units stay so), and what pi
// does not say is left out rather than measured behind its back.
//
// Every function is pure: (the call as pi saw it, pi's answer, helpers) -> observation object.

// --- read ------------------------------------------------------------------------------------

// Notices pi appends after the shown lines (dist/core/tools/read.js):
//   `\n\n[Showing lines S-E of N. Use offset=K to continue.]`               (line cap)
//   `\n\n[Showing lines S-E of N (50.0KB limit). Use offset=K to continue.]` (byte cap)
//   `\n\n[R more lines in file. Use offset=K to continue.]`                  (the caller's limit)
// and, instead of any text, when the first selected line alone is over the byte cap:
//   `[Line S is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n 'Sp' PATH | head -c 51200]`
const READ_CAP_NOTICE =
  /\n\n\[Showing lines (\d+)-(\d+) of (\d+)( \([^)]* limit\))?\. Use offset=(\d+) to continue\.\]$/;
const READ_LIMIT_NOTICE = /\n\n\[(\S+) more lines in file\. Use offset=(\S+) to continue\.\]$/;
const READ_LONG_LINE = /^\[Line (\d+) is \S+, exceeds \S+ limit\. Use bash: [\s\S]*\]$/;
const READ_IMAGE = /^Read image file \[([^\]]+)\]/;
// pi's note on an image it scaled down to fit 2000x2000:
//   `[Image: original 3007x667, displayed at 2000x444. Multiply coordinates by 1.50 ...]`
const READ_IMAGE_RESIZED = /\[Image: original (\d+)x(\d+), displayed at (\d+)x(\d+)\./;

/** A whole number >= 1 from pi's text, or null (pi prints `offset=0`, `offset=2.5` ... too). */
function positiveInteger(text) {
  const value = Number(text);
  return Number.isSafeInteger(value) && value >= 1 ? value : null;
}

/** The lines of text pi shows through the end of the file: split on LF, no line after a final LF
 * (pi's own split counts one more, empty, line there; it shows nothing for it). */
function linesToEnd(text) {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** pi's first shown line for the call's offset: `offset ? max(0, offset - 1) : 0`, 0-based. */
function readStartIndex(offset) {
  const start = offset ? Math.max(0, offset - 1) : 0;
  return Number.isFinite(start) ? Math.trunc(start) : 0;
}

export function readObservation(args, result) {
  const content = Array.isArray(result?.content) ? result.content : [];
  const image = content.find((block) => block?.type === "image");
  const text = content
    .filter((block) => block?.type === "text")
    .map((block) => String(block.text ?? ""))
    .join("\n");
  const imageNote = READ_IMAGE.exec(text);
  if (image || imageNote) {
    const observation = { kind: "image", mime_type: String(image?.mimeType ?? imageNote[1]) };
    const resized = READ_IMAGE_RESIZED.exec(text);
    if (resized) {
      const [originalWidth, originalHeight, width, height] = resized.slice(1).map(Number);
      Object.assign(observation, {
        resized: true,
        width,
        height,
        original_width: originalWidth,
        original_height: originalHeight,
      });
    }
    return observation;
  }
  const truncation = result?.details?.truncation;
  const startIndex = readStartIndex(args?.offset);

  const longLine = READ_LONG_LINE.exec(text);
  if (longLine && truncation?.firstLineExceedsLimit) {
    // Nothing of the line is shown; pi points at bash instead of an offset.
    return {
      kind: "text",
      start_line: Number(longLine[1]),
      lines: [],
      truncated: true,
      truncated_by: "bytes",
      next_offset: null,
    };
  }

  const cap = READ_CAP_NOTICE.exec(text);
  if (cap) {
    const [, start, end, total, byBytes, next] = cap;
    const shown = text.slice(0, cap.index);
    const count = Number(end) - Number(start) + 1;
    return {
      kind: "text",
      start_line: Number(start),
      lines: count > 0 ? shown.split("\n") : [],
      total_lines: Number(total),
      truncated: true,
      truncated_by: byBytes || truncation?.truncatedBy === "bytes" ? "bytes" : "lines",
      next_offset: positiveInteger(next),
    };
  }

  const limited = READ_LIMIT_NOTICE.exec(text);
  if (limited) {
    const [, more, next] = limited;
    const shown = text.slice(0, limited.index);
    // pi's next offset is its start + the lines it took (`offset=K`), so an empty text is one
    // empty line when K says one line was taken, and no line at all otherwise (limit 0).
    const taken = Number(next) - (startIndex + 1);
    const total = Number(more) + Number(next) - 1;
    return {
      kind: "text",
      start_line: startIndex + 1,
      lines: shown === "" ? (taken === 1 ? [""] : []) : shown.split("\n"),
      total_lines: Number.isSafeInteger(total) && total >= 0 ? total : null,
      truncated: true,
      truncated_by: "limit",
      next_offset: positiveInteger(next),
    };
  }

  // No notice: pi showed everything from the start line through the end of the file.
  const lines = linesToEnd(text);
  return {
    kind: "text",
    start_line: startIndex + 1,
    lines,
    total_lines: startIndex + lines.length,
    truncated: false,
    truncated_by: null,
    next_offset: null,
  };
}

// --- write and edit --------------------------------------------------------------------------

const WROTE = /^Successfully wrote (\d+) bytes to /;
const REPLACED = /^Successfully replaced (\d+) block\(s\) in /;

/** write: `Successfully wrote N bytes to PATH`. N is what pi counted (`content.length`, UTF-16
 * code units): reported as pi reported it. pi says nothing of whether the file existed. */
export function writeObservation(args, result, { resolvePath }) {
  const wrote = WROTE.exec(textOf(result));
  const observation = { path: resolvePath(args.path) };
  if (wrote) observation.bytes_written = Number(wrote[1]);
  return observation;
}

/** edit: `Successfully replaced N block(s) in PATH.` and `details.firstChangedLine`. */
export function editObservation(args, result, { resolvePath }) {
  const replaced = REPLACED.exec(textOf(result));
  const first = result?.details?.firstChangedLine;
  const observation = { path: resolvePath(args.path) };
  if (replaced) observation.replacements = Number(replaced[1]);
  if (Number.isSafeInteger(first) && first >= 1) observation.first_changed_line = first;
  return observation;
}

// --- grep ------------------------------------------------------------------------------------

// pi prints one line per shown line (dist/core/tools/grep.js):
//   `REL:N: TEXT` for a match, `REL-N- TEXT` for a context line,
// REL relative to the searched directory (or the file's base name when a file was searched),
// TEXT without CRs and cut at 500 characters with `... [truncated]` appended. Notices follow
// after a blank line, `\n\n[...]`, when details has matchLimitReached, truncation or
// linesTruncated. No matches: `No matches found`.
const GREP_SEPARATOR = /([:-])(\d+)\1 /g;
const CUT_MARK = "... [truncated]";
const GREP_LINE_CHARS = 500;

/** Split one shown grep line into (path, number, text, match), choosing among the places
 * `:N: `/`-N- ` occurs the first whose path names an existing file (a file name may hold
 * those characters itself). */
function splitGrepLine(line, toPath, named) {
  const candidates = [];
  for (const found of line.matchAll(GREP_SEPARATOR)) {
    if (found.index === 0) continue;
    candidates.push({
      rel: line.slice(0, found.index),
      number: Number(found[2]),
      match: found[1] === ":",
      text: line.slice(found.index + found[0].length),
    });
  }
  const chosen = candidates.find((c) => named(c.rel)) ?? candidates[0];
  if (!chosen) return undefined;
  let { text } = chosen;
  let cut = false;
  if (text.endsWith(CUT_MARK) && text.length - CUT_MARK.length === GREP_LINE_CHARS) {
    text = text.slice(0, GREP_LINE_CHARS);
    cut = true;
  }
  return { path: toPath(chosen.rel), line: chosen.number, text, match: chosen.match, cut };
}

/** grep: pi has one output mode, matching lines with their numbers (`content`). */
export function grepObservation(args, result, { searchPath, isDirectory, exists, join, basename }) {
  const details = result?.details ?? {};
  let text = textOf(result);
  const noticed = details.matchLimitReached !== undefined || details.truncation || details.linesTruncated;
  if (noticed) {
    const at = text.lastIndexOf("\n\n[");
    if (at >= 0) text = text.slice(0, at);
  }
  // A searched directory: paths relative to it. A searched file: its base name.
  const toPath = (rel) => (isDirectory ? join(searchPath, rel) : searchPath);
  const named = isDirectory ? (rel) => exists(join(searchPath, rel)) : (rel) => rel === basename(searchPath);
  const lines = [];
  if (!(text === "No matches found" && !noticed)) {
    for (const shown of text === "" ? [] : text.split("\n")) {
      const parsed = splitGrepLine(shown, toPath, named);
      if (parsed) lines.push(parsed);
    }
  }
  return {
    mode: "content",
    lines,
    truncated: details.matchLimitReached !== undefined || Boolean(details.truncation?.truncated),
    next_offset: null,
  };
}

// --- bash ------------------------------------------------------------------------------------

// What pi shows (dist/core/tools/bash.js): the output (its last 2000 lines / 50 KiB), `(no output)`
// when there was none, then after a blank line a cut notice naming the full output's file, and on
// failure a status line: `Command exited with code N`, `Command timed out after N seconds`,
// `Command aborted` (the output is then `` when empty, not `(no output)`).
const BASH_EXIT = /(?:^|\n\n)Command exited with code (-?\d+)$/;
const BASH_TIMEOUT = /(?:^|\n\n)Command timed out after (\S+) seconds$/;
const BASH_ABORTED = /(?:^|\n\n)Command aborted$/;
const BASH_CUT =
  /(?:^|\n\n)\[Showing (?:last \S+ of line \d+ \(line is \S+\)|lines \d+-\d+ of \d+(?: \([^)]* limit\))?)\. Full output: ([^\n]*)\]$/;

/**
 * bash, success or error. `run` is what the adapter saw of pi's own executor for this call:
 * whether pi started the command (`started`), the timeout pi handed it (`timeout`), the exit code
 * it resolved with (`exitCode`: null when a signal ended the shell) and how many output bytes
 * arrived (`bytes`).
 */
export function bashObservation(result, isError, run) {
  const observation = {
    exit_code: null,
    signal: null,
    timed_out: false,
    aborted: false,
    output: "",
    truncated: false,
    full_output_path: null,
    timeout_s: null,
    background: false,
    running: false,
  };
  if (!run.started) return observation; // refused before anything ran
  observation.timeout_s = typeof run.timeout === "number" && run.timeout > 0 ? run.timeout : null;
  let body = textOf(result);
  if (isError) {
    let status;
    if ((status = BASH_EXIT.exec(body))) observation.exit_code = Number(status[1]);
    else if ((status = BASH_TIMEOUT.exec(body))) observation.timed_out = true;
    else if ((status = BASH_ABORTED.exec(body))) observation.aborted = true;
    if (status) body = body.slice(0, status.index);
    else return observation; // pi failed around the command (e.g. its cwd is gone)
  } else {
    observation.exit_code = run.exitCode ?? null;
  }
  const cut = BASH_CUT.exec(body);
  if (cut) {
    observation.truncated = true;
    observation.full_output_path = cut[1];
    body = body.slice(0, cut.index);
    observation.output_head = ""; // pi keeps the end of the output only
  }
  observation.output = run.bytes === 0 ? "" : body;
  if (cut) observation.output_tail = observation.output;
  return observation;
}

function textOf(result) {
  const content = Array.isArray(result?.content) ? result.content : [];
  return content
    .filter((block) => block?.type === "text")
    .map((block) => String(block.text ?? ""))
    .join("\n");
}
