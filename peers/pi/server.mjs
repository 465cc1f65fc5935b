#!/usr/bin/env node
// agenttools/2 stdio adapter for pi (@mariozechner/pi-coding-agent 0.73.1).
//
// JSON-RPC 2.0, one object per line on stdin/stdout. Requests are served concurrently.
// Only protocol lines go to stdout; everything else (console.*, stray writes) goes to stderr.
// Every success result (and every bash result) carries details.observation, built from pi's own
// answer by observe.mjs: mapping what pi showed, never correcting it.

import { spawn } from "node:child_process";
import { closeSync, existsSync, constants as fsConstants, lstatSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, delimiter, dirname, isAbsolute, join, resolve as resolvePath } from "node:path";
import { fileURLToPath } from "node:url";
import { bashObservation, editObservation, grepObservation, readObservation, writeObservation } from "./observe.mjs";

// --- keep stdout for the protocol only -------------------------------------------------------

const protocolWrite = process.stdout.write.bind(process.stdout);

function guardStdout() {
  const toStderr = (...args) => {
    process.stderr.write(args.map((a) => (typeof a === "string" ? a : safeInspect(a))).join(" ") + "\n");
  };
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
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
  process.stderr.write(`[pi-adapter] ${msg}\n`);
}

const PI_VERSION = "0.73.1";
let pi; // the pi-coding-agent module, loaded in serve()
let validateToolArguments; // pi-ai's argument validation, as pi's agent loop uses it
let resolveToCwd; // pi's own path resolution (dist/core/tools/path-utils.js), loaded in serve()
let agentDir;

// The same content as manifest.toml (a kit test keeps the two equal).
const MANIFEST = {
  name: "pi",
  version: PI_VERSION,
  spec_version: "0.2",
  tools: ["read", "write", "edit", "grep", "bash"],
  features: ["read.images", "read.image_resize", "read.path_variants", "edit.fuzzy", "edit.multi", "grep.content", "grep.context", "grep.literal"],
  output: { line_numbers: "none" },
  // pi's caps are constants (dist/core/tools/truncate.js). Its byte caps count UTF-8 bytes
  // (Buffer.byteLength); the grep line cap counts JS string length (UTF-16 code units).
  limits: {
    "read.max_lines": 2000,
    "read.max_bytes": { value: 51200, unit: "bytes" },
    // an image over 2000 pixels a side is scaled down to fit, with a note giving both sizes
    "read.image_max_dimension": 2000,
    "grep.max_results": 100,
    "grep.max_line_chars": { value: 500, unit: "chars" },
    "bash.output_max_bytes": { value: 51200, unit: "bytes" },
    "bash.output_max_lines": 2000,
  },
  settings: [],
  dialect: {
    // pi's own names for canonical arguments, as its schema and its errors say them.
    arguments: {
      "edit.file_path": "path",
      "edit.old_string": "oldText",
      "edit.new_string": "newText",
      "grep.ignore_case": "ignoreCase",
    },
    offset_base: { read: 1 },
  },
};

// canonical tool name -> {
//   create(cwd, env, run): a fresh pi tool for one call (`run` records what pi's bash executor did),
//   translate(canonicalArgs): pi's arguments,
//   observe(piArgs, result, context): details.observation of a success result (observe.mjs),
// }
const TOOLS = {
  read: {
    create: (cwd) => pi.createReadTool(cwd),
    // pi's read schema: {path: string, offset?: number (1-indexed line), limit?: number (lines)}
    translate: (args) => renameKeys(args, {}),
    observe: (args, result) => readObservation(args, result),
  },
  write: {
    create: (cwd) => pi.createWriteTool(cwd),
    // pi's write schema: {path: string, content: string}
    translate: (args) => renameKeys(args, {}),
    observe: (args, result, context) => writeObservation(args, result, context),
  },
  edit: {
    create: (cwd) => pi.createEditTool(cwd),
    // canonical {file_path, old_string, new_string, replace_all?, edits?: [{old_string, new_string}]}
    // -> pi {path, edits: [{oldText, newText}]}. pi has no replace_all: it is passed through as
    // is, so pi's own validation decides. With both edits and old_string, old/new become pi's
    // legacy top-level oldText/newText, which pi's prepareArguments folds into edits.
    // A canonical argument that is absent stays absent (pi's validation then names it as
    // missing): no key is created with an undefined value.
    translate: (args) => {
      const { file_path, old_string, new_string, edits, ...rest } = args;
      const out = { ...rest };
      if ("file_path" in args) out.path = file_path;
      const single = {};
      if ("old_string" in args) single.oldText = old_string;
      if ("new_string" in args) single.newText = new_string;
      if (!("edits" in args)) {
        out.edits = [single];
      } else {
        out.edits = Array.isArray(edits)
          ? edits.map((e) => (isPlainObject(e) ? renameKeys(e, EDIT_KEYS) : e))
          : edits;
        Object.assign(out, single);
      }
      return out;
    },
    observe: (args, result, context) => editObservation(args, result, context),
  },
  grep: {
    create: (cwd) => pi.createGrepTool(cwd),
    // pi's grep schema: {pattern, path?, glob? (one string), ignoreCase?, literal?, context?, limit?}.
    // pi has no output_mode (it always shows matching lines) and no offset; like any other
    // argument pi does not know, they are passed through for pi's own validation to judge
    // (its grep schema ignores unknown properties).
    translate: (args) => renameKeys(args, { ignore_case: "ignoreCase" }),
    observe: (args, result, { cwd }) => {
      // pi's own resolution of the search root (grep.js): resolveToCwd(path || ".", cwd), done
      // after an await, so with the server's own HOME.
      const searchPath = resolveToCwd(typeof args.path === "string" && args.path ? args.path : ".", cwd);
      let isDirectory = false;
      try {
        isDirectory = statSync(searchPath).isDirectory();
      } catch {
        // pi answered, so the root existed; a vanished root leaves file paths as pi named them
      }
      return grepObservation(args, result, { searchPath, isDirectory, exists: existsSync, join, basename });
    },
  },
  bash: {
    // The call's env is what the command inherits: pi's spawnHook replaces the spawn env with it
    // (pi does no sanitising of its own). pi's schema: {command, timeout? (seconds)}; it has no
    // run_in_background, which is passed through for pi's own validation to judge. pi's own
    // local executor runs the command; the adapter only watches what it is handed and answers.
    create: (cwd, env, run) =>
      pi.createBashTool(cwd, {
        operations: watchedBashOperations(run),
        ...(env ? { spawnHook: (context) => ({ ...context, env: { ...env } }) } : {}),
      }),
    translate: (args) => renameKeys(args, {}),
  },
};

// pi's default bash executor (createLocalBashOperations, what createBashTool uses when given none),
// with a record of what it was asked and what it answered, so that the observation can state the
// exit code and timeout pi itself saw (pi's text drops the exit code of a success and of a
// signal death).
function watchedBashOperations(run) {
  const local = pi.createLocalBashOperations();
  return {
    exec: (command, cwd, options) => {
      run.started = true;
      run.timeout = options?.timeout;
      const onData = (data) => {
        run.bytes += data.length;
        options.onData(data);
      };
      return local.exec(command, cwd, { ...options, onData }).then((answer) => {
        run.exitCode = answer?.exitCode;
        return answer;
      });
    },
  };
}

const EDIT_KEYS = { old_string: "oldText", new_string: "newText" };

// Run fn (synchronously) as if this process had inherited the call's environment, as far as pi's
// file tools look at it: HOME, which os.homedir() reads for `~`. Restored before anything else runs.
function asInherited(env, fn) {
  if (!env) return fn();
  const saved = process.env.HOME;
  if (typeof env.HOME === "string") process.env.HOME = env.HOME;
  else delete process.env.HOME;
  try {
    return fn();
  } finally {
    if (saved === undefined) delete process.env.HOME;
    else process.env.HOME = saved;
  }
}

function renameKeys(args, mapping) {
  const out = {};
  for (const [key, value] of Object.entries(args)) {
    out[mapping[key] ?? key] = value;
  }
  return out;
}

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
// Paths of calls that were aborted. pi answers an abort at once but leaves its file operation
// running; on a FIFO that operation sits in open(2) in a libuv pool thread forever, and Node's
// exit waits for every pool thread. finish() wakes such FIFOs so the process can exit.
const abandonedPaths = new Set();
let callCounter = 0;
let shuttingDown = false;

function idKey(id) {
  return JSON.stringify(id);
}

function isPlainObject(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

// Make `details` JSON-safe: drop functions/undefined/symbols, turn bigints into strings,
// break cycles, keep Buffers/typed arrays out of the wire as plain arrays.
function jsonSafe(value, seen = new WeakSet()) {
  if (value === null) return null;
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : String(value);
    case "bigint":
      return value.toString();
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
    default:
      break;
  }
  if (seen.has(value)) return undefined;
  seen.add(value);
  try {
    if (typeof value.toJSON === "function") return jsonSafe(value.toJSON(), seen);
    if (ArrayBuffer.isView(value)) return Array.from(value);
    if (Array.isArray(value)) {
      return value.map((item) => {
        const v = jsonSafe(item, seen);
        return v === undefined ? null : v;
      });
    }
    if (value instanceof Map) return jsonSafe(Object.fromEntries(value), seen);
    if (value instanceof Set) return jsonSafe([...value], seen);
    if (value instanceof Error) return { name: value.name, message: value.message };
    const out = {};
    for (const [k, v] of Object.entries(value)) {
      const safe = jsonSafe(v, seen);
      if (safe !== undefined) out[k] = safe;
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

function normaliseContent(content) {
  if (!Array.isArray(content)) return [];
  const out = [];
  for (const block of content) {
    if (!isPlainObject(block)) continue;
    if (block.type === "text") {
      out.push({ type: "text", text: String(block.text ?? "") });
    } else if (block.type === "image") {
      out.push({ type: "image", data: String(block.data ?? ""), mimeType: String(block.mimeType ?? "") });
    } else {
      const safe = jsonSafe(block);
      if (safe !== undefined) out.push(safe);
    }
  }
  return out;
}

function errorResult(error) {
  const message = error instanceof Error ? error.message : String(error);
  return { content: [{ type: "text", text: message }], isError: true, details: {} };
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

  // Only bash consults the environment (see TOOLS.bash); the other tools ignore it.
  const run = { started: false, timeout: undefined, exitCode: undefined, bytes: 0 };
  const piTool = spec.create(cwd, params.env, run);
  const toolCallId = `agenttools-${++callCounter}`;
  // Arguments that are not an object (a list, a string ...) go to pi's validation as they are,
  // as a model's would in pi's agent loop: the answer is pi's error result, not a protocol error.
  const piArgs = isPlainObject(args ?? {}) ? spec.translate(args ?? {}) : args;
  if (typeof piArgs?.path === "string") {
    const target = resolvePath(cwd, piArgs.path.replace(/^@/, ""));
    signal.addEventListener("abort", () => abandonedPaths.add(target), { once: true });
  }

  let answer;
  let validated = piArgs;
  try {
    // Do what pi's agent loop does before execute: prepareArguments, then schema validation
    // (with pi's own coercions). A failure there is a tool error result, as in the agent loop.
    const prepared = piTool.prepareArguments ? piTool.prepareArguments(piArgs) : piArgs;
    validated = validateToolArguments(piTool, {
      type: "toolCall",
      id: toolCallId,
      name: piTool.name,
      arguments: prepared,
    });
    // execute resolves the path (`~` by os.homedir(), i.e. HOME) before its first await, so the
    // call's environment is in place exactly while it runs synchronously (read, write, edit).
    const result = await asInherited(params.env, () => piTool.execute(toolCallId, validated, signal, () => {}));
    const details = jsonSafe(result?.details);
    answer = {
      content: normaliseContent(result?.content),
      isError: false,
      details: isPlainObject(details) ? details : {},
    };
  } catch (error) {
    answer = errorResult(error);
  }
  if (tool === "bash") {
    answer.details.observation = bashObservation(answer, answer.isError, run);
  } else if (!answer.isError) {
    answer.details.observation = spec.observe(validated, answer, {
      cwd,
      resolvePath: (path) => asInherited(params.env, () => resolveToCwd(path, cwd)),
    });
  }
  return answer;
}

async function dispatch(msg) {
  const { id, method, params } = msg;
  switch (method) {
    case "initialize":
      return { name: "pi", version: PI_VERSION, protocol: "agenttools/2", manifest: MANIFEST };
    case "configure":
      if (params !== undefined && !isPlainObject(params)) {
        throw new RpcError(-32602, "configure params must be an object");
      }
      return { applied: {} }; // pi's read/write have no knobs
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
  // Other notifications are ignored, as JSON-RPC requires.
}

// Give requests still in flight a short time to answer, then abort what is left.
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
  await Promise.allSettled([...pending]);
}

async function finish(code) {
  if (shuttingDown) return;
  shuttingDown = true;
  await drainPending();
  try {
    rmSync(agentDir, { recursive: true, force: true });
  } catch {
    // best effort
  }
  await wakeAbandonedFifos();
  // Exit once everything already queued on stdout has been handed to the OS.
  protocolWrite("", () => process.exit(code));
}

// Open each abandoned FIFO from the other side for a moment, a few times over (pi opens a file
// twice per read: once to sniff for an image, once to read it), so that pool threads blocked in
// open(2) return and Node's exit does not wait for them forever. Only done when exiting.
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

// The protocol's lines end at LF only. node:readline also ends a line at a lone CR, so a line
// holding one (JSON whitespace, or a stray byte of a line that is not JSON) was answered twice
// and every later answer came one request late (ROBUST-LINE-01).
function readLines(input, onLine, onEnd) {
  let pending = [];
  const emit = (parts) => {
    let text;
    try {
      text = Buffer.concat(parts).toString("utf8");
    } catch (error) {
      send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: `line too long: ${error.message}` } });
      return;
    }
    onLine(text);
  };
  input.on("data", (chunk) => {
    let start = 0;
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, start)) {
      pending.push(chunk.subarray(start, at));
      const parts = pending;
      pending = [];
      start = at + 1;
      emit(parts);
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  });
  input.on("end", () => {
    if (pending.length) emit(pending);
    pending = [];
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
  // JSON-RPC ids: a string, an integer (exactly representable here) or null; a fraction, a
  // number beyond 2^53 or a boolean is an invalid request, answered with id null.
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
  // Not awaited: the next line is read while this request is still running.
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
  // Isolate pi from the network and the user's config before loading it.
  process.env.PI_OFFLINE = "1";
  agentDir = mkdtempSync(join(tmpdir(), "pi-agenttools-"));
  process.env.PI_CODING_AGENT_DIR = agentDir;
  pi = await import("@mariozechner/pi-coding-agent");
  ({ validateToolArguments } = await import("@mariozechner/pi-ai"));
  // Not in pi's package exports: loaded by file URL next to the entry point, so that an
  // observation names the file pi itself wrote or searched (pi strips `@`, expands `~` ...).
  ({ resolveToCwd } = await import(new URL("./core/tools/path-utils.js", import.meta.resolve("@mariozechner/pi-coding-agent")).href));

  readLines(process.stdin, handleLine, () => finish(0));
  log(`ready (pi ${PI_VERSION}, PI_CODING_AGENT_DIR=${agentDir}, UV_THREADPOOL_SIZE=${process.env.UV_THREADPOOL_SIZE})`);
}

// pi's read opens files through libuv's thread pool (4 threads by default). A read of a FIFO with
// no writer blocks one pool thread in open(2) for good, even after the call is cancelled, so four
// such reads would stall every later file operation of this long-lived server and make unrelated
// later tests time out. libuv sizes the pool once, when it first starts, and an ES module's own
// loading already starts it, so the size has to be in the environment at process start: when it
// is not, this script runs itself once more as a child with it set and stays a thin parent that
// shares its stdin/stdout/stderr and passes on signals and the exit status. A blocked read still
// behaves exactly as pi does; only the blast radius shrinks.
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
    process.stderr.write(`[pi-adapter] cannot start the server process: ${error.message}\n`);
    process.exit(1);
  });
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
}

// pi's grep runs `rg` from PATH (PI_OFFLINE forbids its download). The kit starts this adapter with
// its own environment, whose PATH may lack the virtualenv that holds the ripgrep wheel's `rg`, so
// look for it: AGENTTOOLS_RG_DIR, the active virtualenv, the directory of the Python that started
// us (argv[0] of the parent, as invoked), and the checkout's .venv (where .ci/run installs the kit).
function ensureRgOnPath() {
  const hasRg = (dir) => Boolean(dir) && existsSync(join(dir, "rg"));
  const path = process.env.PATH ?? "";
  if (path.split(delimiter).some(hasRg)) return;
  const candidates = [
    process.env.AGENTTOOLS_RG_DIR,
    process.env.VIRTUAL_ENV && join(process.env.VIRTUAL_ENV, "bin"),
    parentInterpreterDir(),
    join(dirname(fileURLToPath(import.meta.url)), "..", "..", ".venv", "bin"),
  ];
  const found = candidates.find(hasRg);
  if (found) process.env.PATH = path ? `${found}${delimiter}${path}` : found;
  else log("rg not found on PATH nor beside the kit's Python; pi's grep will fail (set AGENTTOOLS_RG_DIR)");
}

function parentInterpreterDir() {
  try {
    const argv0 = readFileSync(`/proc/${process.ppid}/cmdline`, "utf8").split("\0")[0];
    return argv0.includes("/") ? dirname(argv0) : undefined;
  } catch {
    return undefined;
  }
}

ensureRgOnPath();
// The relaunched server and its thin parent are one implementation: when the parent dies without
// passing anything on (SIGKILL), the server dies the same way, at once and without cleanup, as a
// single pi process would. Whatever pi had started then fares exactly as it would with pi killed.
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
