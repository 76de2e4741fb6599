#!/usr/bin/env python3
"""Golden frames for the codec tests, from an encoder independent of the C++ one.

Reads Kafka's JSON message schemas (not in the repository: the directory given as the
first argument, else $ROKKA_KAFKA_SCHEMA_DIR, as for tests/protocol/api_keys_test.cc)
and, for every API and version in API_RANGES below, writes frames (header + body, no
size prefix) for requests and responses into tests/protocol/golden/<Message>.golden.
Each field gets a deterministic value derived from its path, so two fields never share
a value by accident.

The consumer-protocol structures (DATA_RANGES) get frames of an int16 version and
the body, in the full and null variants.

Variants per version:
  full    every nullable field present, every array of two elements
  null    every field that may be null is null, other arrays hold one element,
          strings and bytes are empty
  tagged  (flexible versions only) `full` with unknown tagged fields added to every
          tagged-field section, header included; it must decode to the same values
          and re-encode to the `full` frame

File format, one record per line:
  v<version> <variant> frame <hex>
  v<version> <variant> paths <path> <path> ...
  v<version> <variant> flat <token> <token> ...
`paths` and `flat` align one to one: every field in wire order (header first),
arrays contributing their count (or null) before their elements. Tokens:
  integers in decimal, true/false, null, s:<text>, b:<hex>, u:<hex>, r:<hex>, f:<hex of the IEEE bits>
python3 stdlib only.  Usage: python3 gen.py [schema-dir]
"""
import json
import os
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))

# API name -> (first, last) version we advertise.
API_RANGES = {
    'Produce': (0, 11), 'Fetch': (4, 17), 'ListOffsets': (0, 10), 'Metadata': (0, 13), 'ApiVersions': (0, 4),
    'CreateTopics': (0, 7), 'DeleteTopics': (0, 6), 'CreatePartitions': (0, 3), 'DeleteRecords': (0, 2),
    'DescribeConfigs': (0, 4), 'AlterConfigs': (0, 2), 'IncrementalAlterConfigs': (0, 1), 'InitProducerId': (0, 5),
    'DescribeCluster': (0, 2), 'OffsetForLeaderEpoch': (0, 4), 'SaslHandshake': (0, 1), 'SaslAuthenticate': (0, 2),
    'FindCoordinator': (0, 6), 'JoinGroup': (0, 9), 'SyncGroup': (0, 5), 'Heartbeat': (0, 4), 'LeaveGroup': (0, 5),
    'OffsetCommit': (0, 9), 'OffsetFetch': (0, 9), 'ListGroups': (0, 5), 'DescribeGroups': (0, 6),
    'DeleteGroups': (0, 2), 'OffsetDelete': (0, 0),
    'AddPartitionsToTxn': (0, 3), 'AddOffsetsToTxn': (0, 3), 'EndTxn': (0, 3), 'TxnOffsetCommit': (0, 3),
    'WriteTxnMarkers': (0, 1),
    'DescribeProducers': (0, 0), 'DescribeTransactions': (0, 0), 'ListTransactions': (0, 2), 'DescribeAcls': (0, 3), 'CreateAcls': (0, 3), 'DeleteAcls': (0, 3),
    'DescribeLogDirs': (0, 4), 'ElectLeaders': (0, 2), 'AlterPartitionReassignments': (0, 0),
    'ListPartitionReassignments': (0, 0),
    'DescribeUserScramCredentials': (0, 0), 'AlterUserScramCredentials': (0, 0),
    'DescribeTopicPartitions': (0, 0), 'DescribeClientQuotas': (0, 1), 'AlterClientQuotas': (0, 1),
    'ConsumerGroupHeartbeat': (0, 1), 'ConsumerGroupDescribe': (0, 1),
}

# Embedded data structures: an int16 version, then the body (no header, never flexible).
DATA_RANGES = {'ConsumerProtocolSubscription': (0, 3), 'ConsumerProtocolAssignment': (0, 3)}

# Versions Kafka added after the schema snapshot this generator reads (trunk of 2024-10-25,
# before 4.0), written from the version notes of Kafka 4.x's schemas: message ->
# (its last valid version, [(struct, after, field)]): each field, in the schemas' own
# notation, goes into the struct reached through the named array fields ('' for the top
# level), after the field named `after` (None: at the end).
LATER_VERSIONS = {
    # KIP-1102: v13 adds a top-level error code (REBOOTSTRAP_REQUIRED); the request is unchanged.
    'MetadataRequest': (13, []),
    'MetadataResponse': (13, [('', None, {'name': 'ErrorCode', 'type': 'int16', 'versions': '13+'})]),
    # KIP-1043: v6 answers an unknown group with GROUP_ID_NOT_FOUND and a message.
    'DescribeGroupsRequest': (6, []),
    'DescribeGroupsResponse': (6, [('Groups', 'ErrorCode', {'name': 'ErrorMessage', 'type': 'string',
                                                             'versions': '6+', 'nullableVersions': '6+'})]),
    # KIP-1073: v2 asks for fenced brokers too and flags each broker.
    'DescribeClusterRequest': (2, [('', 'EndpointType', {'name': 'IncludeFencedBrokers', 'type': 'bool',
                                                         'versions': '2+'})]),
    'DescribeClusterResponse': (2, [('Brokers', 'Rack', {'name': 'IsFenced', 'type': 'bool', 'versions': '2+'})]),
    # KIP-1152: v2 filters by a regular expression on the transactional id; the response is unchanged.
    'ListTransactionsRequest': (2, [('', 'DurationFilter', {'name': 'TransactionalIdPattern', 'type': 'string',
                                                            'versions': '2+', 'nullableVersions': '2+'})]),
    'ListTransactionsResponse': (2, []),
    # KIP-1099: v1 says which protocol each member speaks; the request is unchanged.
    'ConsumerGroupDescribeRequest': (1, []),
    'ConsumerGroupDescribeResponse': (1, [('Groups.Members', 'TargetAssignment', {'name': 'MemberType', 'type': 'int8',
                                                                                  'versions': '1+', 'default': '-1'})]),
}

# Tagged fields our codec knows, by message (top-level field names). The `full` and
# `tagged` variants carry them, in tag order, ahead of the unknown tags; `null` leaves
# them out (each at its default). Every other tagged field is left out of our frames.
KNOWN_TAGGED = {  # by field name, at any depth of the message
    'ApiVersionsResponse': {'SupportedFeatures', 'FinalizedFeaturesEpoch', 'FinalizedFeatures'},
    'ProduceResponse': {'CurrentLeader', 'NodeEndpoints'},
    'FetchResponse': {'CurrentLeader', 'NodeEndpoints'},
}

UNKNOWN_TAGS = [(3, b'\xab\xcd'), (300, b'')]  # tag numbers no message in range defines at that spot


def load_schema(schema_dir, name):
    with open(os.path.join(schema_dir, name + '.json')) as f:
        text = '\n'.join(line for line in f if not line.lstrip().startswith('//'))
    schema = json.loads(text)
    if name in LATER_VERSIONS:
        last, fields = LATER_VERSIONS[name]
        schema['validVersions'] = schema['validVersions'].split('-')[0] + '-' + str(last)
        for where, after, field in fields:
            struct = schema['fields']
            for name in filter(None, where.split('.')):
                struct = next(f for f in struct if f['name'] == name)['fields']
            at = len(struct) if after is None else 1 + next(i for i, f in enumerate(struct) if f['name'] == after)
            struct.insert(at, field)
    return schema


def in_versions(spec, v):
    """True if version v is in a schema version spec: "none", "3", "3+", "0-7"."""
    spec = str(spec)
    if spec == 'none':
        return False
    if spec.endswith('+'):
        return v >= int(spec[:-1])
    if '-' in spec:
        lo, hi = spec.split('-')
        return int(lo) <= v <= int(hi)
    return v == int(spec)


# ---- primitive encodings (Kafka wire rules, big-endian) ----

def uvarint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7f) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def length_prefix(n, compact, classic_fmt):
    """n = -1 for null."""
    if compact:
        return uvarint(n + 1)
    return struct.pack(classic_fmt, n)


# ---- deterministic values ----

def h32(path):
    return zlib.crc32(path.encode())


def value_for(ftype, path, variant, nullable):
    """The value a field gets; None means null."""
    h = h32(path)
    if ftype == 'bool':
        return h % 2 == 1
    if ftype == 'int8':
        return h % 200 - 100
    if ftype == 'int16':
        return h % 60000 - 30000
    if ftype == 'uint16':
        return h % 65536
    if ftype == 'int32':
        return h - (1 << 32) if h >= (1 << 31) else h
    if ftype == 'uint32':
        return h
    if ftype == 'int64':
        u = (h << 32) | h32(path + '#')
        return u - (1 << 64) if u >= (1 << 63) else u
    if ftype == 'float64':
        return (h % 100000) / 64.0
    if ftype == 'uuid':
        return b''.join(struct.pack('>I', h32(path + str(i))) for i in range(4))
    if nullable and variant == 'null':
        return None
    if ftype == 'string':
        if variant == 'null':
            return ''
        return path.split('.')[-1].lower() + '-' + str(h % 100000)
    if ftype in ('bytes', 'records'):
        if variant == 'null':
            return b''
        return bytes((h >> (i % 4 * 8)) & 0xff ^ i for i in range(3 + h % 9))
    raise ValueError(ftype)


def token(ftype, value):
    if value is None:
        return 'null'
    if ftype == 'bool':
        return 'true' if value else 'false'
    if ftype in ('int8', 'int16', 'uint16', 'int32', 'uint32', 'int64'):
        return str(value)
    if ftype == 'float64':
        return 'f:' + struct.pack('>d', value).hex()
    if ftype == 'string':
        return 's:' + value
    prefix = {'bytes': 'b:', 'uuid': 'u:', 'records': 'r:'}[ftype]
    return prefix + value.hex()


SCALAR_FMT = {'bool': '>?', 'int8': '>b', 'int16': '>h', 'uint16': '>H', 'int32': '>i', 'uint32': '>I',
              'int64': '>q', 'float64': '>d'}


class Encoder:
    """Walks a schema for one version and variant, producing bytes and the flat value list."""

    def __init__(self, schema, version, flexible, variant):
        self.schema = schema
        self.known_tagged = KNOWN_TAGGED.get(schema.get('name'), set())
        self.common = {s['name']: s for s in schema.get('commonStructs', [])}
        self.version = version
        self.flexible = flexible
        self.variant = variant
        self.out = bytearray()
        self.paths = []
        self.flat = []

    def emit(self, path, tok):
        self.paths.append(path)
        self.flat.append(tok)

    def struct(self, fields, prefix):
        tagged = []
        for f in fields:
            if not in_versions(f['versions'], self.version):
                continue
            if 'taggedVersions' in f and in_versions(f['taggedVersions'], self.version):
                if f['name'] in self.known_tagged and self.variant != 'null':
                    tagged.append(f)
                continue  # other tagged fields are left out of our frames
            self.field(f, prefix + f['name'])
        if self.flexible:
            self.tag_section(tagged, prefix)

    def tag_section(self, known, prefix):
        fields = []
        for f in sorted(known, key=lambda f: f['tag']):
            sub = Encoder(self.schema, self.version, self.flexible, self.variant)
            sub.field(f, prefix + f['name'])
            self.paths += sub.paths
            self.flat += sub.flat
            fields.append((f['tag'], bytes(sub.out)))
        if self.variant == 'tagged':
            fields += UNKNOWN_TAGS
        self.out += uvarint(len(fields))
        for tag, data in fields:
            self.out += uvarint(tag) + uvarint(len(data)) + data

    def field(self, f, path):
        ftype = f['type']
        nullable = in_versions(f.get('nullableVersions', 'none'), self.version)
        compact = self.flexible and f.get('flexibleVersions', '0+') != 'none'
        if ftype.startswith('[]'):
            return self.array(f, ftype[2:], path, nullable, compact)
        if ftype in ('string', 'bytes', 'records') or ftype in SCALAR_FMT or ftype == 'uuid':
            value = value_for(ftype, path, 'full' if self.variant == 'tagged' else self.variant, nullable)
            self.emit(path, token(ftype, value))
            self.out += self.encode_value(ftype, value, compact)
            return
        if 'fields' in f or ftype in self.common:
            return self.struct_field(f, path, nullable)
        raise ValueError('unknown type %s at %s' % (ftype, path))

    def struct_field(self, f, path, nullable):
        """A struct-typed field: a nullable one is an int8 marker (-1 null, 1 present), then
        the fields; `null` variant: one `null` token, a present one adds no token of its own."""
        variant = 'full' if self.variant == 'tagged' else self.variant
        fields = f.get('fields') or self.common[f['type']]['fields']
        if nullable:
            if variant == 'null':
                self.emit(path, 'null')
                self.out += struct.pack('>b', -1)
                return
            self.out += struct.pack('>b', 1)
        self.struct(fields, path + '.')

    def encode_value(self, ftype, value, compact):
        if ftype in SCALAR_FMT:
            return struct.pack(SCALAR_FMT[ftype], value)
        if ftype == 'uuid':
            return value
        if ftype == 'string':
            if value is None:
                return length_prefix(-1, compact, '>h')
            data = value.encode()
            return length_prefix(len(data), compact, '>h') + data
        if value is None:
            return length_prefix(-1, compact, '>i')
        return length_prefix(len(value), compact, '>i') + value

    def array(self, f, elem, path, nullable, compact):
        variant = 'full' if self.variant == 'tagged' else self.variant
        if nullable and variant == 'null':
            self.emit(path, 'null')
            self.out += length_prefix(-1, compact, '>i')
            return
        count = 2 if variant == 'full' else 1
        self.emit(path, '[%d]' % count)
        self.out += length_prefix(count, compact, '>i')
        for i in range(count):
            ep = '%s.%d' % (path, i)
            if elem in SCALAR_FMT or elem in ('string', 'uuid'):
                value = value_for(elem, ep, variant, False)
                self.emit(ep, token(elem, value))
                self.out += self.encode_value(elem, value, compact)
            else:
                fields = f.get('fields') or self.common[elem]['fields']
                self.struct(fields, ep + '.')


def encode(schema, version, flexible, variant, prefix=''):
    e = Encoder(schema, version, flexible, variant)
    e.struct(schema['fields'], prefix)
    return e


def generate(schema_dir, out_dir):
    req_header = load_schema(schema_dir, 'RequestHeader')
    resp_header = load_schema(schema_dir, 'ResponseHeader')
    for api, (lo, hi) in sorted(API_RANGES.items()):
        request = load_schema(schema_dir, api + 'Request')
        key = request['apiKey']
        for kind in ('Request', 'Response'):
            schema = request if kind == 'Request' else load_schema(schema_dir, api + 'Response')
            lines = ['# Generated by gen.py from Kafka\'s JSON schemas; do not edit.']
            for v in range(lo, hi + 1):
                flexible = in_versions(schema['flexibleVersions'], v)
                for variant in ('full', 'null', 'tagged'):
                    if variant == 'tagged' and not flexible:
                        continue
                    head = header_for(kind, api, key, v, flexible, variant, req_header, resp_header)
                    body = encode(schema, v, flexible, variant)
                    frame = bytes(head.out) + bytes(body.out)
                    tag = 'v%d %s' % (v, variant)
                    lines.append('%s frame %s' % (tag, frame.hex()))
                    if variant != 'tagged':
                        lines.append('%s paths %s' % (tag, ' '.join(head.paths + body.paths)))
                        lines.append('%s flat %s' % (tag, ' '.join(head.flat + body.flat)))
            with open(os.path.join(out_dir, api + kind + '.golden'), 'w') as f:
                f.write('\n'.join(lines) + '\n')


def generate_data(schema_dir, out_dir):
    for name, (lo, hi) in sorted(DATA_RANGES.items()):
        schema = load_schema(schema_dir, name)
        lines = ['# Generated by gen.py from Kafka\'s JSON schemas; do not edit.']
        for v in range(lo, hi + 1):
            for variant in ('full', 'null'):
                body = encode(schema, v, False, variant)
                frame = struct.pack('>h', v) + bytes(body.out)
                tag = 'v%d %s' % (v, variant)
                lines.append('%s frame %s' % (tag, frame.hex()))
                lines.append('%s paths %s' % (tag, ' '.join(['Version'] + body.paths)))
                lines.append('%s flat %s' % (tag, ' '.join([str(v)] + body.flat)))
        with open(os.path.join(out_dir, name + '.golden'), 'w') as f:
            f.write('\n'.join(lines) + '\n')


def header_for(kind, api, key, version, flexible, variant, req_header, resp_header):
    """Request header v1/v2 or response header v0/v1, with fixed values for the header fields."""
    if kind == 'Request':
        hv = 2 if flexible else 1
        fixed = {'RequestApiKey': key, 'RequestApiVersion': version, 'CorrelationId': 0x1000 + key * 100 + version,
                 'ClientId': None if variant == 'null' else 'golden-client'}
        schema = req_header
    else:
        hv = 1 if flexible and api != 'ApiVersions' else 0
        fixed = {'CorrelationId': 0x1000 + key * 100 + version}
        schema = resp_header
    e = Encoder(schema, hv, in_versions(schema['flexibleVersions'], hv), variant)
    # Header fields carry protocol meaning, so they get fixed values instead of path-derived ones.
    for f in schema['fields']:
        if not in_versions(f['versions'], hv) or 'taggedVersions' in f:
            continue
        compact = e.flexible and f.get('flexibleVersions', '0+') != 'none'
        value = fixed[f['name']]
        e.emit('Header.' + f['name'], token(f['type'], value))
        e.out += e.encode_value(f['type'], value, compact)
    if e.flexible:
        e.tag_section([], "")
    return e


if __name__ == '__main__':
    schemas = sys.argv[1] if len(sys.argv) > 1 else os.environ.get('ROKKA_KAFKA_SCHEMA_DIR', '')
    if not os.path.isdir(schemas):
        sys.exit('usage: gen.py SCHEMA_DIR (Kafka\'s JSON message schemas; or set ROKKA_KAFKA_SCHEMA_DIR)')
    generate(schemas, HERE)
    generate_data(schemas, HERE)
