import {
  CreateRegistryAuthCommand,
  DeleteRegistryAuthCommand,
  GetRegistryAuthQuery,
  ListRegistryAuthQuery,
} from '../registry-auth/registry-auth.commands.js';
import type { RegistryAuthView } from '../registry-auth/registry-auth.dto.js';
import {
  ReleasePodCommand,
  ReservePodCommand,
  type PlacementView,
} from '../placement/placement.contracts.js';
import { Subjects } from './subjects.js';

export type Class<T> = new (...args: never[]) => T;

/** Typed subject → payload/result map of every command. */
export interface CommandContracts {
  [Subjects.placement.reserve]: { payload: ReservePodCommand; result: PlacementView };
  [Subjects.placement.release]: { payload: ReleasePodCommand; result: null };
  [Subjects.registryAuth.create]: { payload: CreateRegistryAuthCommand; result: RegistryAuthView };
  [Subjects.registryAuth.delete]: { payload: DeleteRegistryAuthCommand; result: null };
}

/** Typed subject → payload/result map of every query. */
export interface QueryContracts {
  [Subjects.registryAuth.list]: { payload: ListRegistryAuthQuery; result: RegistryAuthView[] };
  [Subjects.registryAuth.get]: { payload: GetRegistryAuthQuery; result: RegistryAuthView };
}

export type CommandSubject = keyof CommandContracts;
export type QuerySubject = keyof QueryContracts;
export type CommandPayload<S extends CommandSubject> = CommandContracts[S]['payload'];
export type CommandResult<S extends CommandSubject> = CommandContracts[S]['result'];
export type QueryPayload<S extends QuerySubject> = QueryContracts[S]['payload'];
export type QueryResult<S extends QuerySubject> = QueryContracts[S]['result'];

/** The class every payload is validated against on receipt, whichever transport brought it. */
export const CommandPayloadClasses: { [S in CommandSubject]: Class<CommandPayload<S>> } = {
  [Subjects.placement.reserve]: ReservePodCommand,
  [Subjects.placement.release]: ReleasePodCommand,
  [Subjects.registryAuth.create]: CreateRegistryAuthCommand,
  [Subjects.registryAuth.delete]: DeleteRegistryAuthCommand,
};

export const QueryPayloadClasses: { [S in QuerySubject]: Class<QueryPayload<S>> } = {
  [Subjects.registryAuth.list]: ListRegistryAuthQuery,
  [Subjects.registryAuth.get]: GetRegistryAuthQuery,
};
