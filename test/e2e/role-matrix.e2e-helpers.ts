import {
  buildSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  type GraphQLField,
  type GraphQLInputType,
} from 'graphql';
import { ROLE_GRANTS, type Access, type AccountResource, type TeamRole } from '@app/contracts';
import { openApiDocument } from '../support/openapi.js';

/** Helpers of test/e2e/role-matrix.e2e-spec.ts (not a test file itself). */

export interface Route {
  method: string;
  /** The OpenAPI path template, `/v2/pods/{podId}`. */
  path: string;
}

export interface Classified {
  resource: AccountResource;
  access: Access;
  /** A route of the deployment's operators (`@Auth({operator: true})`): no team key, whatever its role. */
  operator?: true;
}

/** The operators' routes (path, and methods where not all): refused to every team key (403), whatever the role. */
const OPERATOR_ROUTES: readonly [RegExp, string[]?][] = [
  [/^\/v2\/(users|quotas|fleet)(\/|$)/],
  // A team's quota is read by its members, set by operators.
  [/^\/v2\/teams\/\{teamId\}\/quota$/, ['PUT', 'DELETE']],
];

/**
 * What each REST route acts on, by path, as docs/api.md's role table names the families (first match wins). It is
 * the test's own reading of the table, not the gateway's decorators: a route the gateway classifies otherwise
 * shows as a difference. A route no rule matches fails the test (a new family must be placed here).
 */
const REST_RESOURCES: readonly [RegExp, AccountResource, Access?][] = [
  // The worker protocol changes the queue (take, report, ping): a write of requests, whatever its method.
  [
    /^\/v2\/\{endpointId\}\/(job-take|job-take-batch|job-done|job-stream|job-stop|ping)\//,
    'requests',
    'write',
  ],
  // Whoever holds an endpoint's webhook secret can forge its webhooks: reading it is managing the endpoint.
  [/^\/v2\/\{endpointId\}\/webhook-secret(\/|$)/, 'endpoints', 'write'],
  [
    /^\/v2\/\{endpointId\}\/(run|runsync|status|status-sync|stream|cancel|retry|purge-queue|health)(\/|$)/,
    'requests',
  ],
  [/^\/v[12]\/billing(\/|$)/, 'billing'],
  [/^\/v2\/account\/spend-limit$/, 'billing'],
  [/^\/v2\/account\/api-keys(\/|$)/, 'api-keys'],
  [/^\/v2\/account\/quota$/, 'team'],
  [/^\/(v1\/user|v2\/account)\/ssh-keys(\/|$)/, 'settings'],
  // Not offered by a self-hosted deployment: 501 to every role, nothing of the account read or changed.
  [/^\/v2\/registries\/delegations(\/|$)/, 'catalog'],
  [/^\/v2\/serverless\/\{endpointId\}\/(builds|releases)(\/|$)/, 'catalog'],
  [/^\/(v1\/containerregistryauth|v2\/registries)(\/|$)/, 'registry-auth'],
  [/^\/(v1\/endpoints|v2\/serverless)(\/|$)/, 'endpoints'],
  [/^\/(v1\/networkvolumes|v2\/network-volumes)(\/|$)/, 'volumes'],
  [/^\/v[12]\/pods(\/|$)/, 'pods'],
  [/^\/v[12]\/templates(\/|$)/, 'templates'],
  [/^\/v2\/clusters(\/|$)/, 'clusters'],
  [/^\/v2\/catalog(\/|$)/, 'catalog'],
  [/^\/v2\/teams(\/|$)/, 'team'],
  [/^\/v2\/audit$/, 'audit'],
];

/** Every REST route of the committed OpenAPI documents (v1 and v2: pods, …, queue jobs, worker protocol). */
export function restRoutes(): Route[] {
  return (['v1', 'v2'] as const).flatMap((iface) =>
    Object.entries(openApiDocument(iface).paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => ({ method: method.toUpperCase(), path })),
    ),
  );
}

/** The list routes (GETs without a path parameter), plain, with every `include…` flag, and filtered by `ids`. */
export function listRoutes(ids: Ids): string[] {
  return (['v1', 'v2'] as const).flatMap((iface) =>
    Object.entries(openApiDocument(iface).paths).flatMap(([path, operations]) => {
      if (!operations.get || path.includes('{')) return [];
      const query = (operations.get.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      const flags = query.filter((name) => name.startsWith('include')).map((name) => `${name}=true`);
      const filters = query.flatMap((name) => {
        const id = (ids as unknown as Record<string, string | undefined>)[name];
        return id ? [`${path}?${name}=${encodeURIComponent(id)}`] : [];
      });
      return [path, ...(flags.length ? [`${path}?${flags.join('&')}`] : []), ...filters];
    }),
  );
}

export function classifyRest(route: Route): Classified | undefined {
  const { method, path } = route;
  if (OPERATOR_ROUTES.some(([p, methods]) => p.test(path) && (methods?.includes(method) ?? true))) {
    return { resource: 'team', access: method === 'GET' ? 'read' : 'write', operator: true };
  }
  const rule = REST_RESOURCES.find(([pattern]) => pattern.test(route.path));
  if (!rule) return undefined;
  return { resource: rule[1], access: rule[2] ?? (route.method === 'GET' ? 'read' : 'write') };
}

/** Whether ROLE_GRANTS lets the role do it (the table itself, imported: the test follows it). */
export function mayDo(role: TeamRole, { resource, access, operator }: Classified): boolean {
  return !operator && ROLE_GRANTS[resource][access].includes(role);
}

/** The ids a path's parameters are filled with: an account's resources, or none at all. */
export interface Ids {
  podId: string;
  clusterId: string;
  endpointId: string;
  lbEndpointId: string;
  templateId: string;
  registryId: string;
  networkVolumeId: string;
  teamId: string;
  userId: string;
  jobId: string;
  sshKeyId: string;
  apiKeyId: string;
}

/** Ids that name nothing: a write the role may do answers 404 and changes nothing. */
export const NO_IDS: Ids = {
  podId: 'pod-none',
  clusterId: 'cluster-none',
  endpointId: 'endpoint-none',
  lbEndpointId: 'endpoint-none',
  templateId: 'template-none',
  registryId: 'registry-none',
  networkVolumeId: 'volume-none',
  teamId: 'team_none',
  userId: 'user_none',
  jobId: 'job-none',
  sshKeyId: 'ssh-none',
  apiKeyId: 'key_none',
};

const OTHER_IDS: Ids = Object.fromEntries(
  Object.entries(NO_IDS).map(([name, id]) => [name, `${id}-other`]),
) as unknown as Ids;

/** The account id a path parameter names, or undefined for one that names no resource of an account. */
function idOf(path: string, param: string, ids: Ids): string | undefined {
  switch (param) {
    case 'id':
      if (path.startsWith('/v2/clusters')) return ids.clusterId;
      if (path.includes('ssh-keys')) return ids.sshKeyId;
      return undefined;
    case 'containerRegistryAuthId':
      return ids.registryId;
    default:
      return (ids as unknown as Record<string, string | undefined>)[param];
  }
}

/** The path with its parameters filled from `ids`; parameters naming no account's resource get `none`. */
export function fillPath(path: string, ids: Ids): string {
  return path.replace(/\{(\w+)\}/g, (_, param: string) =>
    encodeURIComponent(idOf(path, param, ids) ?? 'none'),
  );
}

/** Whether a path names at least one of the account's resources (a route the cross-team check asks). */
export function namesResource(path: string): boolean {
  return [...path.matchAll(/\{(\w+)\}/g)].some(([, param]) => idOf(path, param, NO_IDS) !== undefined);
}

/** A body that passes a write's validation, so a foreign resource is refused by its owner check, not by a 422. */
export function bodyOf(route: Route, self: { userName: string }): unknown {
  const { method, path } = route;
  if (method === 'GET' || method === 'DELETE') return undefined;
  if (/\/members\/\{userId\}$/.test(path)) return { role: 'basic' };
  if (/\/members$/.test(path)) return { user: self.userName, role: 'basic' };
  if (/\/action$/.test(path)) return { action: 'stop' };
  if (/\/(run|runsync)$/.test(path)) return { input: { n: 1 } };
  if (/\/(job-done|job-stream)\//.test(path)) return { output: 'x' };
  if (method === 'PATCH' || path.endsWith('/update')) return { name: 'taken-over' };
  return method === 'POST' || method === 'PUT' ? {} : undefined;
}

/** What each GraphQL field reads or changes (a field of `myself` reads; a mutation writes its resource). */
const GRAPHQL_RESOURCES: Readonly<Record<string, AccountResource>> = {
  'Query.myself': 'team',
  'Query.pod': 'pods',
  'Query.gpuTypes': 'catalog',
  'Myself.id': 'team',
  'Myself.serverlessDiscount': 'team',
  'Myself.pubKey': 'settings',
  'Myself.endpoints': 'endpoints',
  'Myself.pods': 'pods',
  'Myself.networkVolumes': 'volumes',
  'Myself.containerRegistryCreds': 'registry-auth',
  'Mutation.updateUserSettings': 'settings',
  'Mutation.saveEndpoint': 'endpoints',
  'Mutation.updateEndpointTemplate': 'endpoints',
  'Mutation.deleteEndpoint': 'endpoints',
  'Mutation.createNetworkVolume': 'volumes',
  'Mutation.deleteNetworkVolume': 'volumes',
  'Mutation.podFindAndDeployOnDemand': 'pods',
  'Mutation.deployCpuPod': 'pods',
  'Mutation.podRentInterruptable': 'pods',
  'Mutation.podStop': 'pods',
  'Mutation.podResume': 'pods',
  'Mutation.podTerminate': 'pods',
  'Mutation.saveRegistryAuth': 'registry-auth',
  'Mutation.updateRegistryAuth': 'registry-auth',
  'Mutation.deleteRegistryAuth': 'registry-auth',
  'Mutation.saveTemplate': 'templates',
  'Mutation.deleteTemplate': 'templates',
};

export interface GraphqlOperation {
  /** `Query.pod`, `Myself.pods`, `Mutation.podStop`. */
  name: string;
  /** Undefined when GRAPHQL_RESOURCES does not place the field. */
  classified?: Classified;
  /** The document, with the smallest valid arguments; ids from `ids` where an argument names one. */
  document(ids: Ids): string;
  /** Whether an argument names one of the account's resources (asked in the cross-team check). */
  namesResource: boolean;
}

/** The id an argument (or input field) of a GraphQL field names, by its name and the field's. */
function graphqlId(field: string, arg: string, ids: Ids): string | undefined {
  const named: Record<string, string> = {
    podId: ids.podId,
    endpointId: ids.endpointId,
    templateId: ids.templateId,
    networkVolumeId: ids.networkVolumeId,
  };
  if (named[arg]) return named[arg];
  if (arg !== 'id') return undefined;
  if (/Endpoint/.test(field)) return ids.endpointId;
  if (/Template/.test(field)) return ids.templateId;
  if (/RegistryAuth/.test(field)) return ids.registryId;
  if (/NetworkVolume/.test(field)) return ids.networkVolumeId;
  if (/^pod/.test(field)) return ids.podId;
  return undefined;
}

/** A literal of the type: required input fields only, plus any that names an id. */
function literal(type: GraphQLInputType, field: string, arg: string, ids: Ids): string {
  if (isNonNullType(type)) return literal(type.ofType, field, arg, ids);
  if (isListType(type)) return `[${literal(type.ofType, field, arg, ids)}]`;
  const id = graphqlId(field, arg, ids);
  if (id !== undefined) return JSON.stringify(id);
  if (isEnumType(type)) return type.getValues()[0].name;
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields()).filter(
      (f) => (isNonNullType(f.type) && f.defaultValue === undefined) || graphqlId(field, f.name, ids),
    );
    return `{ ${fields.map((f) => `${f.name}: ${literal(f.type, field, f.name, ids)}`).join(', ')} }`;
  }
  return { Int: '1', Float: '1', Boolean: 'false' }[type.name] ?? '"none"';
}

function call(field: GraphQLField<unknown, unknown>, ids: Ids): string {
  const args = field.args.filter((a) => isNonNullType(a.type) || graphqlId(field.name, a.name, ids));
  const list = args.map((a) => `${a.name}: ${literal(a.type, field.name, a.name, ids)}`).join(', ');
  return `${field.name}${list ? `(${list})` : ''}${isLeafType(getNamedType(field.type)) ? '' : ' { __typename }'}`;
}

/** Every query and mutation field of the SDL, and every field of `myself` (each checks its own resource). */
export function graphqlOperations(sdl: string): GraphqlOperation[] {
  const schema = buildSchema(sdl);
  const operations: GraphqlOperation[] = [];
  const add = (name: string, access: Access, document: (ids: Ids) => string) => {
    const resource = GRAPHQL_RESOURCES[name];
    operations.push({
      name,
      classified: resource ? { resource, access } : undefined,
      document,
      // An argument names an id when the document changes with the ids.
      namesResource: document(NO_IDS) !== document(OTHER_IDS),
    });
  };
  for (const field of Object.values(schema.getQueryType()?.getFields() ?? {})) {
    add(`Query.${field.name}`, 'read', (ids) => `query { ${call(field, ids)} }`);
  }
  const myself = schema.getQueryType()?.getFields().myself;
  const myselfType = myself && getNamedType(myself.type);
  if (myselfType && 'getFields' in myselfType) {
    for (const field of Object.values(myselfType.getFields()) as GraphQLField<unknown, unknown>[]) {
      add(`Myself.${field.name}`, 'read', (ids) => `query { myself { ${call(field, ids)} } }`);
    }
  }
  for (const field of Object.values(schema.getMutationType()?.getFields() ?? {})) {
    add(`Mutation.${field.name}`, 'write', (ids) => `mutation { ${call(field, ids)} }`);
  }
  return operations;
}
