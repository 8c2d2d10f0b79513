"""The moto server of the tests (tests/support/s3_test_server.h), started fast and per process.

Importing moto and building its S3, SQS and Kinesis apps takes 1-2 s of CPU; a suite of over a
hundred S3 tests, each in a process of its own with a server of its own, paid that each time.
So one zygote process imports and warms moto once and forks a server per test process:

  python3 moto_server.py zygote SOCKET_PATH

listens on the Unix socket SOCKET_PATH, forks itself away from the process that started it and
prints "ready" on its standard output once it listens.
A test process connects and sends the path of a log file and a newline; a forked child binds a
free loopback port, answers with the port and a newline and serves moto there (its output goes
to the log) until the connection reaches EOF: the test process holds it for its lifetime, so
the server goes when the test process goes, however it ends. Each child starts with the
zygote's empty state, so tests in different processes never see each other's buckets, queues
or streams. The zygote exits after IDLE_SECONDS without a connection.
"""

import os
import signal
import socket
import sys
import threading

IDLE_SECONDS = 120


def patch_kinesis_as_aws():
    # moto 5 moves a split shard's records into its children, copies merged shards' records
    # into the child, routes new records to closed shards too, never ends a closed shard's
    # iterator and wants the stream name again with a ListShards NextToken. Kinesis keeps a
    # parent's records in the closed parent, writes to open shards only, ends the iterator (no
    # NextShardIterator) once a closed shard is read, and refuses a stream name with NextToken.
    from collections import OrderedDict
    import datetime
    import moto.kinesis.models as km
    from moto.kinesis.utils import decompose_shard_iterator
    from moto.utilities.utils import md5_hash
    def keep_records(original, parents):
        def reshard(self, *shard_ids):
            kept = {}
            for shard_id in shard_ids[:parents]:
                kept[shard_id] = self.shards[shard_id].records
                self.shards[shard_id].records = OrderedDict()
            original(self, *shard_ids)
            for shard_id, records in kept.items():
                self.shards[shard_id].records = records
        return reshard
    def get_shard_for_key(self, partition_key, explicit_hash_key):
        shard = route(self, partition_key, explicit_hash_key)
        key = int(explicit_hash_key) if explicit_hash_key else int(
            md5_hash(partition_key.encode('utf-8')).hexdigest(), 16)
        return next((s for s in self.shards.values()
                     if s.is_open and s.starting_hash <= key <= s.ending_hash), shard)
    def get_records(self, stream_arn, shard_iterator, limit):
        next_iterator, records, behind = read(self, stream_arn, shard_iterator, limit)
        stream_name, shard_id, last = decompose_shard_iterator(next_iterator)
        stream = self.describe_stream(stream_arn=stream_arn, stream_name=stream_name)
        shard = stream.get_shard(shard_id)
        if not shard.is_open and int(last) >= shard.get_max_sequence_number():
            next_iterator = None
        return next_iterator, records, behind
    def list_shards(self, stream_arn=None, stream_name=None, limit=None, next_token=None):
        # Kinesis names no stream with a NextToken (it refuses both); moto wants the name again.
        if next_token and not stream_arn and not stream_name:
            stream_arn, stream_name = token_streams.get(next_token, (None, None))
        shards, token = list_all(self, stream_arn=stream_arn, stream_name=stream_name,
                                 limit=limit, next_token=next_token)
        if token:
            token_streams[token] = (stream_arn, stream_name)
        return shards, token
    token_streams = {}
    # Arrival times. Kinesis stamps a record's arrival in milliseconds; here each record's is a
    # whole millisecond, later than every earlier record's, so a test can name a time after some
    # records and at or before the next ones from the arrivals it read back, instead of waiting
    # for the wall clock to move on.
    def arrival():
        now = wall_clock()
        now = now.replace(microsecond=now.microsecond // 1000 * 1000)
        if last_arrival and now <= last_arrival[0]:
            now = last_arrival[0] + datetime.timedelta(milliseconds=1)
        last_arrival[:] = [now]
        return now
    last_arrival = []
    wall_clock = km.utcnow
    km.utcnow = arrival
    list_all = km.KinesisBackend.list_shards
    km.KinesisBackend.list_shards = list_shards
    route, read = km.Stream.get_shard_for_key, km.KinesisBackend.get_records
    km.Stream.split_shard = keep_records(km.Stream.split_shard, 1)
    km.Stream.merge_shards = keep_records(km.Stream.merge_shards, 2)
    km.Stream.get_shard_for_key = get_shard_for_key
    km.KinesisBackend.get_records = get_records

def patch_s3_conditional_writes_atomic():
    # moto checks If-None-Match / If-Match and then stores the object, with nothing between
    # them: under load two conditional PUTs (or CompleteMultipartUploads) of one key can both
    # succeed. S3 makes a conditional write atomic (one wins, the others get 412); a lock
    # around conditional writes makes moto's so too, which the put-if-absent races test.
    import moto.s3.responses as s3r
    lock = threading.Lock()
    def atomic(original):
        def write(self, *args, **kwargs):
            if self.headers.get('If-None-Match') or self.headers.get('If-Match'):
                with lock:
                    return original(self, *args, **kwargs)
            return original(self, *args, **kwargs)
        return write
    s3r.S3Response.put_object = atomic(s3r.S3Response.put_object)
    s3r.S3Response._key_response_post = atomic(s3r.S3Response._key_response_post)

def warm_up(app):
    # Builds the S3, SQS and Kinesis apps (and imports their backends) before any fork: the
    # dispatcher keeps one app per service, and the children inherit them built.
    from werkzeug.test import Client
    client = Client(app)
    client.put('/tributary-warm-up')
    client.delete('/tributary-warm-up')
    for service, target in (('sqs', 'AmazonSQS.ListQueues'),
                            ('kinesis', 'Kinesis_20131202.ListStreams')):
        client.post('/', data='{}', headers={
            'Authorization': 'AWS4-HMAC-SHA256 Credential=testing/20260101/us-east-1/'
                             f'{service}/aws4_request, SignedHeaders=host, Signature=0',
            'X-Amz-Target': target,
            'Content-Type': 'application/x-amz-json-1.0'})
    client.post('/moto-api/reset')


def serve(connection, app):
    request = b''
    while not request.endswith(b'\n'):
        chunk = connection.recv(4096)
        if not chunk:
            return
        request += chunk
    log = os.open(request[:-1].decode(), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    from werkzeug.serving import make_server
    server = make_server('127.0.0.1', 0, app, threaded=True)
    print(f'Running on http://127.0.0.1:{server.server_port}', flush=True)
    connection.sendall(f'{server.server_port}\n'.encode())

    def watch_client():
        while connection.recv(4096):
            pass
        os._exit(0)
    threading.Thread(target=watch_client, daemon=True).start()
    server.serve_forever()


def zygote(socket_path):
    patch_kinesis_as_aws()
    patch_s3_conditional_writes_atomic()
    from moto.server import DomainDispatcherApplication, create_backend_app
    app = DomainDispatcherApplication(create_backend_app)
    warm_up(app)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped as they end
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        os.unlink(socket_path)
    except FileNotFoundError:
        pass
    listener.bind(socket_path)
    listener.listen(64)
    listener.settimeout(IDLE_SECONDS)
    identity = os.stat(socket_path).st_ino
    if os.fork() > 0:
        os._exit(0)  # the test process that started the zygote is not left its parent
    print('ready', flush=True)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    while True:
        try:
            connection, _ = listener.accept()
        except socket.timeout:
            try:
                if os.stat(socket_path).st_ino == identity:
                    os.unlink(socket_path)
            except FileNotFoundError:
                pass
            return
        if os.fork() == 0:
            try:
                listener.close()
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                connection.settimeout(None)
                serve(connection, app)
            finally:
                os._exit(1)
        connection.close()


if __name__ == '__main__':
    if len(sys.argv) != 3 or sys.argv[1] != 'zygote':
        sys.exit('usage: moto_server.py zygote SOCKET_PATH')
    zygote(sys.argv[2])
