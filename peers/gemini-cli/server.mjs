#!/usr/bin/env node
// agenttools/2 stdio adapter for read_file, write_file and replace, the file tools of Gemini CLI
// (@google/gemini-cli-core 0.61.0).
//
// JSON-RPC 2.0, one object per line on stdin/stdout. Requests are served concurrently.
// Only protocol lines go to stdout; everything else (console.*, stray writes) goes to stderr.
//
// Each call builds a Config whose workspace is the call's cwd, lets that Config build its tool
// registry exactly as the CLI does (Config.createToolRegistry), takes the tool the model would
// get, builds the invocation with the model's arguments (tool.build: the tool's own schema and
// value validation) and runs it through the CLI's own ToolExecutor (the step that turns a tool's
// result into the function response the model reads). The text of the answer is that function
// response; details.observation is built from it by observe.mjs: mapping, never fixing.

import { spawn } from "node:child_process";
import { closeSync, constants as fsConstants, lstatSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, resolve as resolvePath } from "node:path";
import { fileURLToPath } from "node:url";
import { editObservation, readObservation, writeObservation } from "./observe.mjs";

// --- keep stdout for the protocol only -------------------------------------------------------

const protocolWrite = process.stdout.write.bind(process.stdout);

function guardStdout() {
  const toStderr = (...args) => {
    process.stderr.write(args.map((a) => (typeof a === "string" ? a : safeInspect(a))).join(" ") + "\n");
  };
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  console.warn = toStderr;
  // Any library that writes to process.stdout directly ends up on stderr instead.
  process.stdout.write = (chunk, encoding, cb) => process.stderr.write(chunk, encoding, cb);
}

function safeInspect(value) {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

function send(message) {
  protocolWrite(JSON.stringify(message) + "\n");
}

function log(msg) {
  process.stderr.write(`[gemini-cli-adapter] ${msg}\n`);
}

const CORE_VERSION = "0.61.0";
let core; // the @google/gemini-cli-core module, loaded in serve()
let geminiHome; // GEMINI_CLI_HOME: a fresh directory, removed at exit

// The same content as manifest.toml (a kit test keeps the two equal).
const MANIFEST = {
  name: "gemini-cli",
  version: CORE_VERSION,
  spec_version: "0.2",
  tools: ["read", "write", "edit"],
  features: ["read.images", "edit.replace_all"],
  output: { line_numbers: "none" },
  // Constants of gemini-cli-core (utils/constants.js, tools/constants.js).
  limits: {
    "read.max_lines": 2000,
    "read.max_line_chars": { value: 2000, unit: "chars" },
  },
  settings: [],
  dialect: {
    // The tools' own names for canonical arguments, as their schemas and errors say them.
    arguments: {
      "read.path": "file_path",
      "read.offset": "start_line",
      "read.limit": "end_line",
      "write.path": "file_path",
      "edit.replace_all": "allow_multiple",
    },
    offset_base: { read: 1 },
  },
};

// The edit tool's schema requires `instruction`, a sentence for the LLM that may repair a failed
// edit. That repair is off (Config's disableLLMCorrection defaults to true) and nothing else
// reads the instruction; when the caller gives none, the adapter sends the text the tool itself
// falls back to (edit.js: `params.instruction ?? 'Apply the requested edit.'`).
const EDIT_INSTRUCTION = "Apply the requested edit.";

const isNum = (v) => typeof v === "number" && Number.isFinite(v);

// canonical tool name -> { name: the tool's own name, translate(canonicalArgs): its arguments,
// observe(args, answer, context): details.observation of a success (observe.mjs) }.
// A canonical argument that is absent stays absent. A value the translation cannot carry over
// (a number where a boolean is due ...) is passed on as it is under the tool's name, so that the
// tool's own validation judges it. Arguments the tool does not know are passed through as they
// are: its schema ignores unknown properties, exactly as it would for a model.
const TOOLS = {
  read: {
    name: "read_file",
    // read_file {file_path, start_line?, end_line?}: 1-based, end_line inclusive. The canonical
    // limit is a line count: end_line = (offset or 1) + limit - 1.
    translate: (args) => {
      const { path, offset, limit, ...rest } = args;
      const out = { ...rest };
      if ("path" in args) out.file_path = path;
      if ("offset" in args) out.start_line = offset;
      if ("limit" in args) {
        const start = "offset" in args ? offset : 1;
        out.end_line = isNum(limit) && isNum(start) ? start + limit - 1 : limit;
      }
      return out;
    },
    observe: (args, answer, ctx) => readObservation(args, answer, ctx),
  },
  write: {
    name: "write_file",
    translate: (args) => {
      const { path, ...rest } = args;
      const out = { ...rest };
      if ("path" in args) out.file_path = path;
      return out;
    },
    observe: (args, answer, ctx) => writeObservation(args, answer, ctx),
  },
  edit: {
    name: "replace",
    // replace {file_path, instruction, old_string, new_string, allow_multiple?}. No list of edits:
    // `edits` is passed through and the tool's validation judges the call.
    translate: (args) => {
      const { replace_all, ...rest } = args;
      const out = { ...rest };
      if ("replace_all" in args) out.allow_multiple = replace_all;
      if (!("instruction" in out)) out.instruction = EDIT_INSTRUCTION;
      return out;
    },
    observe: (args, answer, ctx) => editObservation(args, answer, ctx),
  },
};

// --- JSON-RPC plumbing ----------------------------------------------------------------------

class RpcError extends Error {
  constructor(code, message, data) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

const inflight = new Map(); // request id (JSON-encoded) -> AbortController
const pending = new Set(); // promises of requests not yet answered
const DRAIN_MS = 3000; // on shutdown / stdin end, how long in-flight calls may still finish
// Paths of calls that were aborted: a read of a FIFO sits in open(2) in a libuv pool thread and
// Node's exit waits for every pool thread; finish() wakes such FIFOs so the process can exit.
const abandonedPaths = new Set();
let callCounter = 0;
let shuttingDown = false;

function idKey(id) {
  return JSON.stringify(id);
}

function isPlainObject(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

// The function response the model reads, as agenttools content blocks: each string `output` or
// `error` of a functionResponse is a text block, each inline image an image block.
function contentFromParts(parts) {
  const content = [];
  const addInline = (inline) => {
    if (isPlainObject(inline) && typeof inline.data === "string") {
      content.push({ type: "image", data: inline.data, mimeType: String(inline.mimeType ?? "") });
    }
  };
  for (const part of Array.isArray(parts) ? parts : []) {
    if (!isPlainObject(part)) continue;
    if (typeof part.text === "string") content.push({ type: "text", text: part.text });
    if (part.inlineData) addInline(part.inlineData);
    const fr = part.functionResponse;
    if (isPlainObject(fr)) {
      const response = isPlainObject(fr.response) ? fr.response : {};
      for (const key of ["output", "error"]) {
        if (typeof response[key] === "string") content.push({ type: "text", text: response[key] });
      }
      for (const inner of Array.isArray(fr.parts) ? fr.parts : []) {
        if (isPlainObject(inner) && inner.inlineData) addInline(inner.inlineData);
      }
    }
  }
  return content;
}

// A Config for one call, pointed at the call's cwd, as the CLI's would be for that workspace
// (no model client is created: nothing here needs one), and the registry it builds.
const refuse = async () => {
  throw new Error("no model client: the agenttools adapter runs the tools without a model");
};
const NO_MODEL = { generateContent: refuse, generateContentStream: refuse, countTokens: refuse, embedContent: refuse };

async function toolsFor(cwd, env) {
  const config = new core.Config({
    sessionId: `agenttools-${process.pid}`,
    targetDir: cwd,
    cwd,
    debugMode: false,
    model: core.DEFAULT_GEMINI_MODEL_AUTO,
    usageStatisticsEnabled: false,
    telemetry: { enabled: false },
    interactive: false,
    approvalMode: "yolo",
    ...(env ? { env: { ...env } } : {}),
  });
  // write_file and replace fetch the model client before they look at the setting that says not
  // to use it (disableLLMCorrection, true by default): the adapter has no model, so the client it
  // gets refuses every request. With the setting on, nothing ever asks it.
  config.baseLlmClient = new core.BaseLlmClient(NO_MODEL, config);
  await config.storage.initialize();
  const registry = await config.createToolRegistry();
  return { config, registry };
}

async function handleCall(params, signal) {
  if (!isPlainObject(params)) throw new RpcError(-32602, "call params must be an object");
  const { tool, arguments: args, cwd } = params;
  if (typeof tool !== "string") throw new RpcError(-32602, "call params.tool must be a string");
  if (typeof cwd !== "string" || !isAbsolute(cwd)) {
    throw new RpcError(-32602, "call params.cwd must be an absolute path");
  }
  if (params.env !== undefined && !isPlainObject(params.env)) {
    throw new RpcError(-32602, "call params.env must be an object");
  }
  const spec = Object.hasOwn(TOOLS, tool) ? TOOLS[tool] : undefined;
  if (!spec) throw new RpcError(-32602, `unknown tool '${tool}'`);

  const { config, registry } = await toolsFor(cwd, params.env);
  const geminiTool = registry.getTool(spec.name);
  if (!geminiTool) throw new RpcError(-32603, `the registry has no tool '${spec.name}'`);
  // Arguments that are not an object go to the tool's validation as they are.
  const toolArgs = isPlainObject(args ?? {}) ? spec.translate(args ?? {}) : args;
  if (isPlainObject(toolArgs) && typeof toolArgs.file_path === "string") {
    const target = resolvePath(cwd, toolArgs.file_path);
    signal.addEventListener("abort", () => abandonedPaths.add(target), { once: true });
  }
  const callId = `agenttools-${++callCounter}`;
  const request = { callId, name: spec.name, args: toolArgs, isClientInitiated: false, prompt_id: "agenttools" };

  // tool.build validates the arguments (schema, then the tool's own checks) and throws what the
  // scheduler turns into the model's error response ({error: message}).
  let invocation;
  try {
    invocation = geminiTool.build(toolArgs);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { content: [{ type: "text", text: message }], isError: true, details: { errorType: "invalid_tool_params" } };
  }
  // The raw ToolResult, kept for details (the executor returns the function response built from it).
  let raw;
  const execute = invocation.execute.bind(invocation);
  invocation.execute = async (...a) => {
    raw = await execute(...a);
    return raw;
  };
  const executor = new core.ToolExecutor({ config, geminiClient: config.getGeminiClient(), promptId: "agenttools" });
  const completed = await executor.execute({
    call: { status: "scheduled", request, tool: geminiTool, invocation, startTime: Date.now() },
    signal,
    onUpdateToolCall: () => {},
  });
  const response = completed.response ?? {};
  const answer = {
    content: contentFromParts(response.responseParts),
    isError: completed.status !== "success",
    details: {
      status: completed.status,
      ...(response.errorType ? { errorType: response.errorType } : {}),
      ...(raw?.error ? { error: { type: raw.error.type, message: raw.error.message } } : {}),
      ...(typeof raw?.returnDisplay === "string" ? { returnDisplay: raw.returnDisplay } : {}),
    },
  };
  if (!answer.isError) {
    answer.details.observation = spec.observe(toolArgs, answer, { cwd, raw, config });
  }
  return answer;
}

async function dispatch(msg) {
  const { id, method, params } = msg;
  switch (method) {
    case "initialize":
      return { name: "gemini-cli", version: CORE_VERSION, protocol: "agenttools/2", manifest: MANIFEST };
    case "configure":
      if (params !== undefined && !isPlainObject(params)) {
        throw new RpcError(-32602, "configure params must be an object");
      }
      return { applied: {} }; // the tools' caps are constants
    case "call": {
      const controller = new AbortController();
      const key = idKey(id);
      inflight.set(key, controller);
      try {
        return await handleCall(params, controller.signal);
      } finally {
        inflight.delete(key);
      }
    }
    case "shutdown":
      await drainPending();
      return null;
    default:
      throw new RpcError(-32601, `unknown method '${method}'`);
  }
}

function handleNotification(msg) {
  if (msg.method === "$/cancelRequest") {
    const target = isPlainObject(msg.params) ? msg.params.id : undefined;
    const controller = target === undefined ? undefined : inflight.get(idKey(target));
    if (controller) {
      log(`cancel request ${idKey(target)}`);
      controller.abort();
    }
  }
}

async function drainPending() {
  const others = [...pending];
  if (others.length === 0) return;
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(resolve, DRAIN_MS);
  });
  await Promise.race([Promise.allSettled(others), timeout]);
  clearTimeout(timer);
  for (const controller of inflight.values()) controller.abort();
  await Promise.race([Promise.allSettled([...pending]), new Promise((resolve) => setTimeout(resolve, DRAIN_MS))]);
}

async function finish(code) {
  if (shuttingDown) return;
  shuttingDown = true;
  await drainPending();
  try {
    rmSync(geminiHome, { recursive: true, force: true });
  } catch {
    // best effort
  }
  await wakeAbandonedFifos();
  protocolWrite("", () => process.exit(code));
}

async function wakeAbandonedFifos() {
  const fifos = [...abandonedPaths].filter((path) => {
    try {
      return lstatSync(path).isFIFO();
    } catch {
      return false;
    }
  });
  if (fifos.length === 0) return;
  log(`waking ${fifos.length} FIFO(s) left open by cancelled calls before exit`);
  for (let round = 0; round < 10; round++) {
    for (const path of fifos) {
      for (const flags of [fsConstants.O_WRONLY, fsConstants.O_RDONLY]) {
        try {
          closeSync(openSync(path, flags | fsConstants.O_NONBLOCK));
        } catch {
          // ENXIO: nobody is waiting to read it right now
        }
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// The protocol's lines end at LF only (node:readline would also end one at a lone CR).
function readLines(input, onLine, onEnd) {
  let parts = [];
  const emit = (chunks) => {
    let text;
    try {
      text = Buffer.concat(chunks).toString("utf8");
    } catch (error) {
      send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: `line too long: ${error.message}` } });
      return;
    }
    onLine(text);
  };
  input.on("data", (chunk) => {
    let start = 0;
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, start)) {
      parts.push(chunk.subarray(start, at));
      const line = parts;
      parts = [];
      start = at + 1;
      emit(line);
    }
    if (start < chunk.length) parts.push(chunk.subarray(start));
  });
  input.on("end", () => {
    if (parts.length) emit(parts);
    parts = [];
    onEnd();
  });
}

function handleLine(line) {
  if (line.trim() === "") return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (error) {
    send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: `parse error: ${error.message}` } });
    return;
  }
  const validId = (v) => typeof v === "string" || Number.isSafeInteger(v) || v === null;
  if (!isPlainObject(msg) || msg.jsonrpc !== "2.0" || typeof msg.method !== "string") {
    const id = isPlainObject(msg) && validId(msg.id) ? msg.id : null;
    send({ jsonrpc: "2.0", id, error: { code: -32600, message: "invalid JSON-RPC 2.0 request" } });
    return;
  }
  if (!("id" in msg)) {
    handleNotification(msg);
    return;
  }
  if (!validId(msg.id)) {
    send({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "invalid request id" } });
    return;
  }
  const { id } = msg;
  const settled = dispatch(msg).then(
    (result) => {
      send({ jsonrpc: "2.0", id, result });
      if (msg.method === "shutdown") finish(0);
    },
    (error) => {
      if (error instanceof RpcError) {
        const err = { code: error.code, message: error.message };
        if (error.data !== undefined) err.data = error.data;
        send({ jsonrpc: "2.0", id, error: err });
      } else {
        log(`internal error serving ${msg.method}: ${error?.stack ?? error}`);
        send({ jsonrpc: "2.0", id, error: { code: -32603, message: String(error?.message ?? error) } });
      }
    },
  );
  if (msg.method !== "shutdown") {
    pending.add(settled);
    settled.finally(() => pending.delete(settled));
  }
}

process.on("unhandledRejection", (reason) => log(`unhandled rejection: ${reason?.stack ?? reason}`));
process.on("uncaughtException", (error) => log(`uncaught exception: ${error?.stack ?? error}`));

async function serve() {
  guardStdout();
  // Keep the CLI's global state (projects registry, temp dirs) out of the user's home.
  geminiHome = mkdtempSync(join(tmpdir(), "gemini-agenttools-"));
  process.env.GEMINI_CLI_HOME = geminiHome;
  core = await import("@google/gemini-cli-core");
  readLines(process.stdin, handleLine, () => finish(0));
  log(`ready (gemini-cli-core ${CORE_VERSION}, GEMINI_CLI_HOME=${geminiHome}, UV_THREADPOOL_SIZE=${process.env.UV_THREADPOOL_SIZE})`);
}

// A read of a FIFO with no writer blocks a libuv pool thread in open(2) (4 threads by default)
// for good, so four such reads would stall every later file operation of this long-lived
// server. libuv sizes its pool once, at start: when UV_THREADPOOL_SIZE is not set, this script
// runs itself once more as a child with it set and stays a thin parent (shared stdio, signals
// passed on, exit status passed back). A blocked read still behaves exactly as the tool does.
const RELAUNCHED = "--agenttools-relaunched";

function relaunch() {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), `${RELAUNCHED}=${process.pid}`, ...process.argv.slice(2)], {
    stdio: "inherit",
    env: { ...process.env, UV_THREADPOOL_SIZE: "64" },
  });
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) {
    process.on(signal, () => child.kill(signal));
  }
  child.on("error", (error) => {
    process.stderr.write(`[gemini-cli-adapter] cannot start the server process: ${error.message}\n`);
    process.exit(1);
  });
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
}

// The relaunched server dies with its thin parent, as a single process would.
function dieWithParent(parent) {
  setInterval(() => {
    if (process.ppid !== parent) process.kill(process.pid, "SIGKILL");
  }, 100).unref();
}

const relaunchedBy = process.argv.find((arg) => arg.startsWith(`${RELAUNCHED}=`));
if (relaunchedBy) {
  dieWithParent(Number(relaunchedBy.slice(RELAUNCHED.length + 1)));
  await serve();
} else if (process.env.UV_THREADPOOL_SIZE) {
  await serve();
} else {
  relaunch();
}
