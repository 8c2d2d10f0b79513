// The Kafka test oracle: kafkajs (an independent JavaScript implementation of the Kafka
// protocol) to produce records tributary reads and to read back what tributary wrote.
// tests/support/kafka_test_cluster.cc runs it from C++; it also works by hand against the test
// broker (tools/kafka_test_broker) or any Kafka.
//
// Usage: node tests/support/kafka_oracle.mjs [--modules DIR] --brokers HOST:PORT[,...] COMMAND
//   produce TOPIC FILE        FILE: a JSON array of {key, value, partition, headers}; key and
//                             value strings or null, partition a number or absent (the
//                             partitioner chooses), headers an object of strings. One send, in
//                             order, acks from all replicas. Prints the count.
//   consume TOPIC [--read-uncommitted]
//                             every record of TOPIC from the start to each partition's current
//                             end, read_committed unless --read-uncommitted; one JSON object
//                             {partition, offset, key, value, headers} per line, sorted by
//                             (partition, offset).
//   --modules DIR  the node_modules folder holding kafkajs. Default: env
//                  TRIBUTARY_ORACLE_NODE_MODULES, else build/oracle/node_modules of this repo
// Errors go to stderr and the exit code is 1 (2 for a usage error).

import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

class UsageError extends Error {}

// How long a consume may take before it gives up (a hang guard, not a synchronization).
const kConsumeTimeoutMs = 60000;

function parseArgs(argv) {
  const options = {
    modules: process.env.TRIBUTARY_ORACLE_NODE_MODULES || '',
    brokers: '',
    readUncommitted: false,
    positional: [],
  };
  for (let i = 0; i < argv.length; ++i) {
    const arg = argv[i];
    if (arg === '--modules' || arg === '--brokers') {
      if (i + 1 >= argv.length) throw new UsageError(`missing value after ${arg}`);
      options[arg.slice(2)] = argv[++i];
    } else if (arg === '--read-uncommitted') {
      options.readUncommitted = true;
    } else if (arg.startsWith('--')) {
      throw new UsageError(`unknown option ${arg}`);
    } else {
      options.positional.push(arg);
    }
  }
  if (!options.modules) options.modules = path.join(here, '..', '..', 'build', 'oracle', 'node_modules');
  if (!options.brokers) throw new UsageError('--brokers HOST:PORT[,...] is required');
  return options;
}

function loadKafkajs(modules) {
  if (!fs.existsSync(path.join(modules, 'kafkajs', 'package.json'))) {
    throw new Error(`kafkajs is not installed in ${modules} (run scripts/setup.sh)`);
  }
  return createRequire(path.join(modules, 'index.js'))('kafkajs');
}

function makeKafka(kafkajs, options) {
  // kafkajs logs to stdout by default; this script's stdout is its answer, so logs go to stderr
  // and only errors at that.
  const logCreator = () => ({ level, log }) => {
    if (level <= kafkajs.logLevel.ERROR) process.stderr.write(`kafkajs: ${log.message}\n`);
  };
  return new kafkajs.Kafka({
    clientId: 'tributary-kafka-oracle',
    brokers: options.brokers.split(','),
    logLevel: kafkajs.logLevel.ERROR,
    logCreator,
    retry: { retries: 5 },
  });
}

function toText(buffer) {
  return buffer === null || buffer === undefined ? null : buffer.toString('utf8');
}

async function produce(kafka, topic, file) {
  const records = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (!Array.isArray(records)) throw new UsageError(`${file} does not hold a JSON array`);
  const producer = kafka.producer({ allowAutoTopicCreation: false, idempotent: false });
  await producer.connect();
  try {
    const messages = records.map((record) => {
      const message = { key: record.key ?? null, value: record.value ?? null };
      if (typeof record.partition === 'number' && record.partition >= 0) message.partition = record.partition;
      if (record.headers && Object.keys(record.headers).length > 0) message.headers = record.headers;
      return message;
    });
    // One send per record keeps the order of records across partitions as given.
    for (const message of messages) {
      await producer.send({ topic, acks: -1, messages: [message] });
    }
    process.stdout.write(`${messages.length}\n`);
  } finally {
    await producer.disconnect();
  }
}

async function consume(kafka, topic, readUncommitted) {
  const admin = kafka.admin();
  await admin.connect();
  let ends;
  try {
    ends = await admin.fetchTopicOffsets(topic);
  } finally {
    await admin.disconnect();
  }
  // Per partition: the offset the read has to reach (high watermark) and where it is.
  const pending = new Map();
  for (const { partition, offset, low } of ends) {
    const end = Number(offset);
    if (end > Number(low)) pending.set(partition, end);
  }
  const rows = [];
  if (pending.size > 0) {
    const consumer = kafka.consumer({
      groupId: `tributary-oracle-${crypto.randomUUID()}`,
      readUncommitted,
      maxWaitTimeInMs: 100,
      allowAutoTopicCreation: false,
    });
    await consumer.connect();
    try {
      await consumer.subscribe({ topic, fromBeginning: true });
      await new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          const left = [...pending.entries()].map(([p, end]) => `${topic}-${p} (end ${end})`);
          reject(new Error(`kafkajs did not reach the end of ${left.join(', ')} within ${kConsumeTimeoutMs} ms`));
        }, kConsumeTimeoutMs);
        consumer
          .run({
            autoCommit: false,
            eachBatch: async ({ batch }) => {
              for (const message of batch.messages) {
                const headers = {};
                for (const [name, value] of Object.entries(message.headers || {})) {
                  headers[name] = toText(Array.isArray(value) ? value[value.length - 1] : value);
                }
                rows.push({
                  partition: batch.partition,
                  offset: Number(message.offset),
                  key: toText(message.key),
                  value: toText(message.value),
                  headers,
                });
              }
              // lastOffset() counts records read_committed filters out (control records,
              // aborted transactions) too, so the read ends at the high watermark either way.
              const end = pending.get(batch.partition);
              if (end !== undefined && !batch.isEmptyIncludingFiltered() && Number(batch.lastOffset()) + 1 >= end) {
                pending.delete(batch.partition);
              }
              if (pending.size === 0) {
                clearTimeout(timer);
                resolve();
              }
            },
          })
          .catch((error) => {
            clearTimeout(timer);
            reject(error);
          });
      });
    } finally {
      await consumer.disconnect();
    }
  }
  rows.sort((a, b) => a.partition - b.partition || a.offset - b.offset);
  const wanted = new Map(ends.map(({ partition, offset }) => [partition, Number(offset)]));
  for (const row of rows) {
    if (row.offset < wanted.get(row.partition)) process.stdout.write(`${JSON.stringify(row)}\n`);
  }
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const command = options.positional.shift();
  const kafkajs = loadKafkajs(options.modules);
  const kafka = makeKafka(kafkajs, options);
  if (command === 'produce') {
    if (options.positional.length !== 2) throw new UsageError('usage: produce TOPIC FILE');
    await produce(kafka, options.positional[0], options.positional[1]);
  } else if (command === 'consume') {
    if (options.positional.length !== 1) throw new UsageError('usage: consume TOPIC [--read-uncommitted]');
    await consume(kafka, options.positional[0], options.readUncommitted);
  } else {
    throw new UsageError('usage: kafka_oracle.mjs [--modules DIR] --brokers LIST (produce TOPIC FILE | consume TOPIC)');
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${error instanceof UsageError ? 'usage error: ' : ''}${error.stack || error}\n`);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
