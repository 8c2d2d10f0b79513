// The S3 test oracle: the AWS SDK for JavaScript (@aws-sdk/client-s3) as a client independent
// of tributary's, to land objects on the test S3 server and read back what tributary wrote.
// tests/support/s3_test_server.h runs it from C++; it is also handy by hand against moto.
//
// Usage: node tests/support/s3_oracle.mjs [--modules DIR] --endpoint URL [--region R]
//            [--access-key K --secret-key S] COMMAND ...
//   put BUCKET KEY FILE     PutObject of FILE's bytes
//   get BUCKET KEY FILE     GetObject into FILE; prints "missing" (and writes nothing) when the
//                           object does not exist (NoSuchKey)
//   list BUCKET PREFIX      every key starting with PREFIX (ListObjectsV2, no delimiter, all
//                           pages), one JSON string per line, in S3's order
//   --modules DIR  the node_modules folder holding @aws-sdk/client-s3. Default: env
//                  TRIBUTARY_ORACLE_NODE_MODULES, else build/oracle/node_modules of this repo
// Addressing is path-style (http://host:port/bucket/key), as the moto server needs. Credentials
// default to the environment's AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, region to us-east-1.
// Errors go to stderr and the exit code is 1 (2 for a usage error).

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

class UsageError extends Error {}

function parseArgs(argv) {
  const options = { modules: process.env.TRIBUTARY_ORACLE_NODE_MODULES || '', positional: [] };
  const valueFlags = new Set(['--modules', '--endpoint', '--region', '--access-key', '--secret-key']);
  for (let i = 0; i < argv.length; ++i) {
    const arg = argv[i];
    if (valueFlags.has(arg)) {
      if (i + 1 >= argv.length) throw new UsageError(`missing value after ${arg}`);
      options[arg.slice(2)] = argv[++i];
    } else if (arg.startsWith('--')) {
      throw new UsageError(`unknown option ${arg}`);
    } else {
      options.positional.push(arg);
    }
  }
  if (!options.modules) options.modules = path.join(here, '..', '..', 'build', 'oracle', 'node_modules');
  return options;
}

function loadSdk(modules) {
  const entry = path.join(modules, '@aws-sdk', 'client-s3');
  if (!fs.existsSync(path.join(entry, 'package.json'))) {
    throw new Error(`@aws-sdk/client-s3 is not installed in ${modules} (run scripts/setup.sh)`);
  }
  return createRequire(path.join(modules, 'index.js'))('@aws-sdk/client-s3');
}

function makeClient(S3, options) {
  if (!options.endpoint) throw new UsageError('--endpoint URL is required');
  const accessKeyId = options['access-key'] ?? process.env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = options['secret-key'] ?? process.env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) throw new UsageError('no credentials: give --access-key and --secret-key');
  return new S3.S3Client({
    endpoint: options.endpoint,
    region: options.region ?? 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
    // The SDK's default CRC32 checksums on every PUT are beside the point here.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
  });
}

function requirePositional(options, count, usage) {
  if (options.positional.length !== count) throw new UsageError(`usage: ${usage}`);
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const command = options.positional.shift();
  if (!command) throw new UsageError('usage: s3_oracle.mjs [--modules DIR] --endpoint URL COMMAND ...');
  const S3 = loadSdk(options.modules);
  const client = makeClient(S3, options);
  try {
    switch (command) {
      case 'put': {
        requirePositional(options, 3, 'put BUCKET KEY FILE');
        const [bucket, key, file] = options.positional;
        await client.send(new S3.PutObjectCommand({
          Bucket: bucket, Key: key, Body: fs.readFileSync(file), ContentType: 'application/octet-stream',
        }));
        break;
      }
      case 'get': {
        requirePositional(options, 3, 'get BUCKET KEY FILE');
        const [bucket, key, file] = options.positional;
        let response;
        try {
          response = await client.send(new S3.GetObjectCommand({ Bucket: bucket, Key: key }));
        } catch (error) {
          if (error?.name === 'NoSuchKey') {
            process.stdout.write('missing\n');
            break;
          }
          throw error;
        }
        fs.writeFileSync(file, await response.Body.transformToByteArray());
        break;
      }
      case 'list': {
        requirePositional(options, 2, 'list BUCKET PREFIX');
        const [bucket, prefix] = options.positional;
        const lines = [];
        let token;
        do {
          const page = await client.send(new S3.ListObjectsV2Command({
            Bucket: bucket, Prefix: prefix, ContinuationToken: token,
          }));
          for (const object of page.Contents ?? []) lines.push(`${JSON.stringify(object.Key)}\n`);
          token = page.IsTruncated ? page.NextContinuationToken : undefined;
        } while (token);
        process.stdout.write(lines.join(''));
        break;
      }
      default:
        throw new UsageError(`unknown command ${command}`);
    }
  } finally {
    client.destroy();
  }
}

try {
  await main();
} catch (error) {
  const code = error?.Code ?? error?.name;
  process.stderr.write(`s3_oracle: ${code ? `${code}: ` : ''}${error.message ?? error}\n`);
  process.exitCode = error instanceof UsageError ? 2 : 1;
}
