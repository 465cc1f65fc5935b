// Observations (docs/adapter-protocol.md) built from what Gemini CLI's tools answered: the text of
// the function response the model reads, and the tool's own result object where the text is
// the same thing in another form. Mapping, not fixing: the observation states what the tool
// showed, in canonical terms; what the tool does not say is left out.

const CUT_MARKER = "... [truncated]";
// MAX_LINE_LENGTH_TEXT_FILE (utils/constants.js): read_file cuts a line at 2000 UTF-16 code
// units and appends CUT_MARKER.
const MAX_LINE = 2000;

function textOf(answer) {
  return answer.content
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("");
}

// ---- read ----------------------------------------------------------------------------------

const READ_HEADER = /^\nIMPORTANT: The file content has been truncated\.\nStatus: Showing lines (\d+)-(\d+) of (\d+) total lines\.\nAction: [^\n]*\n\n--- FILE CONTENT \(truncated\) ---\n/;

// A line read_file cut: the first 2000 code units, then its marker.
function readLineWasCut(line) {
  return line.length === MAX_LINE + CUT_MARKER.length && line.endsWith(CUT_MARKER);
}

export function readObservation(args, answer, { raw }) {
  const image = answer.content.find((block) => block.type === "image");
  if (image) {
    // read_file sends images (and PDFs, audio, video) as the file's bytes in an inline part.
    return { kind: "image", mime_type: image.mimeType };
  }
  const text = textOf(answer);
  if (typeof raw?.llmContent === "string" && raw.llmContent.startsWith("Cannot display content of binary file")) {
    // A binary file: nothing of it is shown.
    return { kind: "text", lines: [], total_lines: null, truncated: false };
  }
  const header = READ_HEADER.exec(text);
  if (header) {
    // "Showing lines S-E of N total lines": the tool's own numbers, its N counting the lines of
    // content.split(/\r?\n/) (a final LF makes one more, empty, line).
    const start = Number(header[1]);
    const end = Number(header[2]);
    const total = Number(header[3]);
    const body = text.slice(header[0].length);
    const lines = end >= start ? body.split("\n") : [];
    const cut = [];
    lines.forEach((line, i) => {
      if (readLineWasCut(line)) cut.push(start + i);
    });
    const more = end < total;
    const byLimit = more && Number.isInteger(args.end_line) && end === args.end_line;
    return {
      kind: "text",
      start_line: start,
      lines: lines.map((line) => (readLineWasCut(line) ? line.slice(0, MAX_LINE) : line)),
      cut_lines: cut,
      total_lines: total,
      truncated: more,
      truncated_by: more ? (byLimit ? "limit" : "lines") : null,
      next_offset: more ? end + 1 : null,
    };
  }
  // No header: the whole file from line 1, its lines joined with LF (the text is the file's
  // content, CRLF shown as LF); a final LF ends the last line.
  const lines = text === "" ? [] : text.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return {
    kind: "text",
    start_line: 1,
    lines,
    cut_lines: [],
    total_lines: lines.length,
    truncated: false,
    truncated_by: null,
    next_offset: null,
  };
}

// ---- write ---------------------------------------------------------------------------------

const WRITE_TEXT = /^Successfully (created and wrote to new file|overwrote file): ([\s\S]*?)\. Here is the updated code:/;

export function writeObservation(args, answer, { raw }) {
  const text = textOf(answer);
  const m = WRITE_TEXT.exec(text);
  const display = raw?.returnDisplay;
  // The tool does not say how many bytes it wrote; its result carries the content it wrote
  // (returnDisplay.newContent): its UTF-8 size is what the tool wrote, before the CRLF
  // conversion it applies when the old file used CRLF.
  const newContent = typeof display?.newContent === "string" ? display.newContent : String(args.content ?? "");
  return {
    path: m ? m[2] : typeof display?.filePath === "string" ? display.filePath : String(args.file_path),
    bytes_written: Buffer.byteLength(newContent, "utf8"),
    created: m ? m[1].startsWith("created") : undefined,
  };
}

// ---- edit ----------------------------------------------------------------------------------

const EDIT_TEXT = /^Successfully modified file: ([\s\S]*?) \((\d+) replacements\)\. Here is the updated code:/;
const EDIT_CREATED = /^Created new file: ([\s\S]*?) with provided content\./;

export function editObservation(args, answer) {
  const text = textOf(answer);
  const m = EDIT_TEXT.exec(text);
  if (m) return { path: m[1], replacements: Number(m[2]) };
  const created = EDIT_CREATED.exec(text);
  // An empty old_string on a missing file creates it: the tool names no count; the one (empty)
  // span was replaced by the new content.
  if (created) return { path: created[1], replacements: 1 };
  return { path: String(args.file_path), replacements: 0 };
}
