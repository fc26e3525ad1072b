// Matches a method and path against the route table: literal segments before {params}, a 405
// with the allowed methods when the path exists under another method.
import type { Route } from './route.js';

interface Node {
  literal: Map<string, Node>;
  param: { name: string; node: Node } | undefined;
  routes: Map<string, Route>;
}

export type Match =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  /** `routes`: those the path has under other methods. */
  | { kind: 'method-not-allowed'; allowed: readonly string[]; routes: readonly Route[] }
  | { kind: 'not-found' };

const newNode = (): Node => ({ literal: new Map(), param: undefined, routes: new Map() });

export class Router {
  private readonly root = newNode();

  constructor(readonly routes: readonly Route[]) {
    for (const route of routes) this.add(route);
  }

  private add(route: Route): void {
    let node = this.root;
    for (const segment of route.path.split('/').slice(1)) {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (param) {
        const name = param[1] as string;
        if (node.param && node.param.name !== name) throw new Error(`conflicting parameter names at ${route.path}`);
        node.param ??= { name, node: newNode() };
        node = node.param.node;
      } else {
        let next = node.literal.get(segment);
        if (!next) node.literal.set(segment, (next = newNode()));
        node = next;
      }
    }
    if (node.routes.has(route.method)) throw new Error(`duplicate route ${route.method} ${route.path}`);
    node.routes.set(route.method, route);
  }

  /** `path` is below the prefix and still percent-encoded; params come back decoded. */
  match(method: string, path: string): Match {
    if (!path.startsWith('/')) return { kind: 'not-found' };
    const segments = path.split('/').slice(1);
    const params: Record<string, string> = {};
    const node = this.walk(this.root, segments, 0, params);
    if (!node) return { kind: 'not-found' };
    // HEAD is GET without the body (RFC 9110 §9.3.2): every GET route answers it.
    const route = node.routes.get(method) ?? (method === 'HEAD' ? node.routes.get('GET') : undefined);
    if (route) return { kind: 'found', route, params };
    const allowed = [...node.routes.keys()];
    if (allowed.includes('GET')) allowed.push('HEAD');
    return { kind: 'method-not-allowed', allowed, routes: [...node.routes.values()] };
  }

  private walk(node: Node, segments: readonly string[], i: number, params: Record<string, string>): Node | undefined {
    if (i === segments.length) return node.routes.size > 0 ? node : undefined;
    const segment = segments[i] as string;
    const literal = node.literal.get(segment);
    if (literal) {
      const found = this.walk(literal, segments, i + 1, params);
      if (found) return found;
    }
    if (node.param && segment !== '') {
      let value: string;
      try {
        value = decodeURIComponent(segment);
      } catch {
        return undefined; // malformed percent-encoding names no resource
      }
      const found = this.walk(node.param.node, segments, i + 1, params);
      if (found) {
        params[node.param.name] = value;
        return found;
      }
    }
    return undefined;
  }
}
