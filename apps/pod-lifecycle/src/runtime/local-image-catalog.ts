import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** One image the local driver runs as a process. */
export interface LocalImage {
  /**
   * argv; `{args}` is replaced by the pod's dockerArgs, `{node}` by the Node.js binary running pod-lifecycle,
   * `{catalogDir}` by the absolute directory of the catalog file (to name programs shipped beside it).
   */
  command: string[];
  description?: string;
}

/**
 * The local image catalog: a JSON file `{"images": {"<image name>": {"command": [...], "description": "..."}}}`.
 * An image matches by exact name, or with `:latest` added or removed. Only images listed here run as real
 * processes; the local driver simulates every other image.
 */
export class LocalImageCatalog {
  constructor(private readonly images: ReadonlyMap<string, LocalImage>) {}

  static empty(): LocalImageCatalog {
    return new LocalImageCatalog(new Map());
  }

  /** Reads and checks the file; a missing file is an empty catalog, a malformed one an error naming the problem. */
  static load(path: string): LocalImageCatalog {
    if (!existsSync(path)) return LocalImageCatalog.empty();
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new Error(`LOCAL_IMAGE_CATALOG ${path} is not valid JSON: ${(error as Error).message}`, {
        cause: error,
      });
    }
    return LocalImageCatalog.parse(parsed, path, dirname(resolve(path)));
  }

  static parse(parsed: unknown, source = 'catalog', baseDir = process.cwd()): LocalImageCatalog {
    const images = (parsed as { images?: unknown } | null)?.images;
    if (typeof images !== 'object' || images === null || Array.isArray(images)) {
      throw new Error(`${source}: expected {"images": {"<image>": {"command": ["..."]}}}`);
    }
    const map = new Map<string, LocalImage>();
    for (const [name, entry] of Object.entries(images as Record<string, unknown>)) {
      const command = (entry as { command?: unknown } | null)?.command;
      if (!Array.isArray(command) || command.length === 0 || !command.every((c) => typeof c === 'string')) {
        throw new Error(`${source}: image ${name} needs "command": a non-empty array of strings`);
      }
      const description = (entry as { description?: unknown }).description;
      map.set(name, {
        command: command.map((part: string) => part.replaceAll('{catalogDir}', baseDir)),
        ...(typeof description === 'string' ? { description } : {}),
      });
    }
    return new LocalImageCatalog(map);
  }

  lookup(image: string): LocalImage | null {
    const candidates = [
      image,
      image.endsWith(':latest') ? image.slice(0, -':latest'.length) : `${image}:latest`,
    ];
    for (const name of candidates) {
      const found = this.images.get(name);
      if (found) return found;
    }
    return null;
  }

  /** The argv for a pod: tokens replaced. */
  static argv(image: LocalImage, args: string | null, nodeBinary: string): string[] {
    return image.command.map((part) =>
      part.replaceAll('{args}', args ?? '').replaceAll('{node}', nodeBinary),
    );
  }
}
