//! How a command's declaration (`command_names.rs`) and its function agree. A command takes its
//! arguments as one struct, [`Args<T>`], read from the whole argument object the window sends
//! (keys in camelCase, as Tauri names separate arguments), and the declaration names that
//! struct and what the command answers. [`takes_args`], [`takes_no_args`] and [`answers`] fail
//! to compile when the function takes another struct (or one where none is declared) or answers
//! another type, so the TypeScript generated from the
//! declaration (`bindings.rs`) is what the function takes and gives.
//!
//! This module knows nothing of particular commands; `command_names.rs` applies it to each.

use std::future::Future;

use serde::de::DeserializeOwned;
use tauri::Runtime;
use tauri::ipc::{CommandArg, CommandItem, InvokeBody, InvokeError};

use crate::error::{CommandError, CommandResult};

/// A command's arguments: the struct `T`, read from the argument object of the call. Keys the
/// struct does not name (a task's `taskId` and `onProgress`, read as arguments of their own)
/// are left to the other arguments.
#[derive(Debug)]
pub struct Args<T>(pub T);

impl<'de, T: DeserializeOwned, R: Runtime> CommandArg<'de, R> for Args<T> {
    fn from_command(command: CommandItem<'de, R>) -> Result<Self, InvokeError> {
        let refused = |message: String| {
            InvokeError::from(CommandError {
                code: "invalid_input",
                message: format!("the arguments of `{}` {message}", command.name),
            })
        };
        match command.message.payload() {
            InvokeBody::Json(payload) => T::deserialize(payload)
                .map(Args)
                .map_err(|error| refused(format!("are not what it takes: {error}"))),
            InvokeBody::Raw(_) => Err(refused("must be a JSON object, not raw bytes".into())),
        }
    }
}

/// The parameter types of a function, as a tuple (`(State<AppState>, Args<T>)`).
pub trait Parameters<Tuple> {
    /// What the function returns: the answer, or (an `async` command) a future of it.
    type Returns;
}

macro_rules! parameters {
    ($($parameter:ident),*) => {
        impl<F, Returns, $($parameter),*> Parameters<($($parameter,)*)> for F
        where
            F: Fn($($parameter),*) -> Returns,
        {
            type Returns = Returns;
        }
    };
}
parameters!();
parameters!(A);
parameters!(A, B);
parameters!(A, B, C);
parameters!(A, B, C, D);
parameters!(A, B, C, D, E);

/// Parameter tuples with `Args<T>` at the place `Position` names.
pub trait HoldsArgs<T, Position> {}

/// The places `Args<T>` may stand in a command's parameters.
pub enum First {}
pub enum Second {}
pub enum Third {}
pub enum Fourth {}
pub enum Fifth {}

macro_rules! args_at {
    ($position:ident: ($($before:ident),*) ($($after:ident),*)) => {
        impl<T, $($before,)* $($after),*> HoldsArgs<T, $position>
            for ($($before,)* Args<T>, $($after,)*)
        {
        }
    };
}
args_at!(First: () ());
args_at!(First: () (B));
args_at!(Second: (A) ());
args_at!(First: () (B, C));
args_at!(Second: (A) (C));
args_at!(Third: (A, B) ());
args_at!(First: () (B, C, D));
args_at!(Second: (A) (C, D));
args_at!(Third: (A, B) (D));
args_at!(Fourth: (A, B, C) ());
args_at!(First: () (B, C, D, E));
args_at!(Second: (A) (C, D, E));
args_at!(Third: (A, B) (D, E));
args_at!(Fourth: (A, B, C) (E));
args_at!(Fifth: (A, B, C, D) ());

/// How a command answers `T`: as it is, as a [`CommandResult`], or (`async`) as a future of one.
pub trait Answer<T, How> {}
pub enum AsItIs {}
pub enum AsResult {}
pub enum AsFuture {}
impl<T> Answer<T, AsItIs> for T {}
impl<T> Answer<T, AsResult> for CommandResult<T> {}
impl<T, F: Future<Output = CommandResult<T>>> Answer<T, AsFuture> for F {}

/// Compiles only if `command` takes `Args<T>` among its parameters.
pub fn takes_args<T, F, Tuple, Position>(_command: &F)
where
    F: Parameters<Tuple>,
    Tuple: HoldsArgs<T, Position>,
{
}

/// A parameter Tauri gives a command beside its [`Args`]: the app's state, a task's id and its
/// progress channel. Not implemented for `Args<T>`, so [`takes_no_args`] refuses a function that
/// takes arguments its declaration does not name.
pub trait Given {}
impl<T: Send + Sync + 'static> Given for tauri::State<'_, T> {}
impl<T: tauri::ipc::IpcResponse> Given for tauri::ipc::Channel<T> {}
/// A task's id.
impl Given for u32 {}

/// Parameter tuples made only of [`Given`] parameters.
pub trait AllGiven {}
macro_rules! all_given {
    ($($parameter:ident),*) => {
        impl<$($parameter: Given),*> AllGiven for ($($parameter,)*) {}
    };
}
all_given!();
all_given!(A);
all_given!(A, B);
all_given!(A, B, C);
all_given!(A, B, C, D);
all_given!(A, B, C, D, E);

/// Compiles only if `command` takes no [`Args`]: a command declared without arguments.
pub fn takes_no_args<F, Tuple>(_command: &F)
where
    F: Parameters<Tuple>,
    Tuple: AllGiven,
{
}

/// Compiles only if `command` answers `T`.
pub fn answers<T, F, Tuple, How>(_command: &F)
where
    F: Parameters<Tuple>,
    F::Returns: Answer<T, How>,
{
}
