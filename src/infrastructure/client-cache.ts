// Clients are created once per module (reused across invocations). Endpoints come from the SDK's own
// configuration: AWS_ENDPOINT_URL / AWS_ENDPOINT_URL_<SERVICE> point them at LocalStack or the
// embedded emulators, so local runs need no code path of their own. A client is rebuilt only when
// that configuration changes, as when a local stack restarts on new ports. One module per service
// keeps each Lambda bundle down to the SDK clients its handler really uses.

export function cachedPerEndpoint<T>(service: string, create: () => T): () => T {
  let cached: { configuration: string; client: T } | undefined;
  return () => {
    const configuration = [
      process.env.AWS_ENDPOINT_URL,
      process.env[`AWS_ENDPOINT_URL_${service}`],
      process.env.PAPERFLOW_S3_FORCE_PATH_STYLE,
    ].join('|');
    if (cached?.configuration !== configuration) cached = { configuration, client: create() };
    return cached.client;
  };
}
