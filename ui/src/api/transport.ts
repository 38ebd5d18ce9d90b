// How `api.ts` and its parts reach the Rust shell: `call` for a command, `startTask` for a
// long one with progress and a way to cancel it. The only file that imports `invoke()`.

import { Channel, invoke, type InvokeArgs } from '@tauri-apps/api/core';

import type { CommandError } from '../bindings/CommandError';
import type { CommandName } from '../bindings/CommandName';
import type { CommandAnswer, CommandArgs, TaskCommandName } from '../bindings/Commands';
import type { TaskProgress } from '../bindings/TaskProgress';

/** A long action under way (an import, a batch of checks): its outcome, and a way to stop it. */
export interface RunningTask<T> {
  done: Promise<T>;
  /** Asks the action to stop at its next safe point; false if it had already ended. */
  cancel(): Promise<boolean>;
}

/** Turns whatever a rejected call gives into a `CommandError`. */
export function asCommandError(error: unknown): CommandError {
  if (typeof error === 'object' && error !== null && 'code' in error && 'message' in error) {
    const { code, message } = error as { code: unknown; message: unknown };
    return { code: String(code), message: String(message) };
  }
  return { code: 'internal', message: String(error) };
}

/** Sends a command; `call` and `startTask` say what it takes and answers. */
async function send<T>(command: CommandName, args: InvokeArgs): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (error) {
    throw asCommandError(error);
  }
}

/**
 * Calls a command the app declares (src-tauri/src/command_names.rs) with the arguments its
 * declaration gives (`CommandArgs`, generated), answering its type (`CommandAnswer`): a name,
 * argument or type the command does not have fails to compile.
 */
export function call<C extends Exclude<CommandName, TaskCommandName>>(command: C, args: CommandArgs[C]): Promise<CommandAnswer[C]> {
  return send<CommandAnswer[C]>(command, args);
}

/** The type of `call`, for the type test that a wrong argument name fails (`ui/type-tests/`). */
export type CallCommand = typeof call;

// Task ids only need to differ between actions running at once; starting at a random number
// keeps a reloaded page from reusing the id of an action still running.
let nextTaskId = Math.floor(Math.random() * 1_000_000_000);

/**
 * Starts a long command that takes `taskId` and an `onProgress` channel, and gives its outcome
 * and a way to cancel it (`cancel_task`).
 */
export function startTask<C extends TaskCommandName>(
  command: C,
  args: CommandArgs[C],
  onProgress: (message: TaskProgress) => void,
): RunningTask<CommandAnswer[C]> {
  const taskId = nextTaskId++;
  const channel = new Channel<TaskProgress>();
  channel.onmessage = onProgress;
  return {
    done: send<CommandAnswer[C]>(command, { ...args, taskId, onProgress: channel }),
    cancel: () => call('cancel_task', { taskId }),
  };
}

/** The type of `startTask`, for the type test that a wrong argument name fails (`ui/type-tests/`). */
export type StartTask = typeof startTask;
