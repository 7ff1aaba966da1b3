/** why the server could not listen, naming the variables to change (Node's words named neither: "getaddrinfo ENOTFOUND", "listen EADDRINUSE") */
export function listenFailure(error: unknown, host: string, port: number, names = { host: 'HOST', port: 'PORT' }): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') return `port ${port} on ${host} is taken by another process: stop it, or set ${names.port} to a free port`;
  if (code === 'EACCES') return `this user may not listen on port ${port}: set ${names.port} to 1024 or above`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EADDRNOTAVAIL') return `${names.host} ${host} is not an address of this machine (0.0.0.0 listens on every one, 127.0.0.1 on this machine only)`;
  return `could not listen on ${host}:${port} (${names.host}, ${names.port}): ${error instanceof Error ? error.message : String(error)}`;
}
