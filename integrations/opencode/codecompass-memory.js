// Code Compass project memory for OpenCode.
//
// Install: copy this file to `.opencode/plugins/` (one project) or
// `~/.config/opencode/plugins/` (all projects); `codecompass` must be on PATH.
//
// Memory in: `codecompass memory context` (Markdown, empty when there are no memories)
// runs in the project directory when a session is created, and its output is cached. It
// is added to the system prompt of each request (`experimental.chat.system.transform`) and
// to the compaction prompt (`experimental.session.compacting`), so it survives compaction.
//
// Memory out: when a session goes idle, the messages added since that session's last
// capture are written as JSONL, one `{info, parts}` message per line with its text parts
// only, to a private temporary file, and `codecompass memory capture <file>` reads it.
// Idle fires after every finished turn, and both `session.idle` and its successor
// `session.status` (type "idle") may fire for the same turn: capturing only messages not
// captured yet makes that harmless, and captures of a session run one at a time. A capture
// that fails leaves its messages for the next idle to retry. Subagent sessions (those with
// a parent) are not captured: their results reach the parent's messages.
//
// Nothing here throws into OpenCode; failures go to the log (`client.app.log`).

import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"

const SERVICE = "codecompass-memory"

export const CodeCompassMemory = async ({ client, $, directory }) => {
  let context = null // promise of the last loaded memory text; null until the first load
  let loading = null
  const captured = new Map() // session id -> ids of the messages already captured
  const queues = new Map() // session id -> the capture running (or last run) for it
  const children = new Set()

  async function log(level, message, extra) {
    const body = { service: SERVICE, level, message, extra }
    try {
      // The SDK's generated client takes `{ body }`; the plugin docs show the fields flat.
      await client.app.log({ body, ...body })
    } catch {
      // a broken log must not break the session
    }
  }

  async function codecompass(args) {
    const result = await $`codecompass ${args}`.cwd(directory).quiet().nothrow()
    if (result.exitCode !== 0) {
      const stderr = result.stderr.toString().trim()
      throw new Error(`codecompass ${args.join(" ")} exited with ${result.exitCode}: ${stderr}`)
    }
    return result.stdout.toString()
  }

  function loadContext() {
    if (!loading) {
      loading = codecompass(["memory", "context"])
        .then(
          (text) => text.trim(),
          async (error) => {
            await log("warn", "could not load the project memory", { error: String(error) })
            return ""
          },
        )
        .finally(() => {
          loading = null
        })
      context = loading
    }
    return loading
  }

  async function messagesOf(sessionID) {
    // `path` is the generated v1 client's form, the flat `sessionID` the v2 client's.
    const response = await client.session.messages({ path: { id: sessionID }, sessionID })
    const messages = Array.isArray(response) ? response : response?.data
    if (!Array.isArray(messages)) {
      const error = JSON.stringify(response?.error ?? response ?? null)
      throw new Error(`no messages for session ${sessionID}: ${error}`)
    }
    return messages
  }

  async function captureNew(sessionID) {
    const messages = await messagesOf(sessionID)
    const done = captured.get(sessionID) ?? new Set()
    const fresh = messages.filter((message) => message?.info?.id && !done.has(message.info.id))
    const lines = fresh.map(transcriptLine).filter((line) => line !== null)
    if (lines.length > 0) {
      const folder = await mkdtemp(join(tmpdir(), "codecompass-"))
      try {
        const file = join(folder, "session.jsonl")
        await writeFile(file, lines.join("\n") + "\n", { encoding: "utf8", mode: 0o600 })
        await codecompass(["memory", "capture", file])
      } finally {
        await rm(folder, { recursive: true, force: true })
      }
    }
    for (const message of fresh) done.add(message.info.id)
    captured.set(sessionID, done)
  }

  function capture(sessionID) {
    const previous = queues.get(sessionID) ?? Promise.resolve()
    const next = previous.then(() =>
      captureNew(sessionID).catch((error) =>
        log("error", "memory capture failed", { sessionID, error: String(error) }),
      ),
    )
    queues.set(sessionID, next)
    return next
  }

  async function idle(sessionID) {
    if (sessionID && !children.has(sessionID)) await capture(sessionID)
  }

  return {
    event: async ({ event }) => {
      try {
        const properties = event?.properties ?? {}
        switch (event?.type) {
          case "session.created": {
            const info = properties.info ?? {}
            if (info.parentID) children.add(info.id)
            else await loadContext()
            break
          }
          case "session.idle":
            await idle(properties.sessionID)
            break
          case "session.status":
            if (properties.status?.type === "idle") await idle(properties.sessionID)
            break
          case "session.deleted": {
            const id = properties.info?.id
            captured.delete(id)
            queues.delete(id)
            children.delete(id)
            break
          }
        }
      } catch (error) {
        await log("error", "memory event failed", { type: event?.type, error: String(error) })
      }
    },

    "experimental.chat.system.transform": async (_input, output) => {
      try {
        const text = await (context ?? loadContext())
        if (text && !output.system.includes(text)) output.system.push(text)
      } catch (error) {
        await log("error", "could not add the project memory", { error: String(error) })
      }
    },

    "experimental.session.compacting": async (_input, output) => {
      try {
        const text = await (context ?? loadContext())
        if (text) output.context.push(text)
      } catch (error) {
        await log("error", "could not add the project memory", { error: String(error) })
      }
    },
  }
}

// One transcript line in the OpenCode shape `codecompass memory capture` reads, with the
// message's own text only (no tool output, reasoning, files or injected text); null when
// there is none.
function transcriptLine({ info, parts }) {
  if (info.role !== "user" && info.role !== "assistant") return null
  if (info.role === "assistant" && info.summary === true) return null // compaction summary
  const texts = (parts ?? [])
    .filter((part) => part?.type === "text" && typeof part.text === "string")
    .filter((part) => !part.synthetic && !part.ignored)
    .map((part) => ({ type: "text", text: part.text }))
  if (texts.length === 0) return null
  return JSON.stringify({
    info: { id: info.id, sessionID: info.sessionID, role: info.role },
    parts: texts,
  })
}
