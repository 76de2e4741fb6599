#!/usr/bin/env node
// kafkajs (a pure JavaScript client: its own protocol code and codecs) against a broker. By hand, not in
// CI (Debian 12 has no kafkajs; npm does):
//
//   npm install --prefix /tmp/rokka-kafkajs kafkajs@2.2.4
//   NODE_PATH=/tmp/rokka-kafkajs/node_modules compat/with_broker.sh node compat/kafkajs_check.js
//   NODE_PATH=/tmp/rokka-kafkajs/node_modules node compat/kafkajs_check.js HOST:PORT
//
// Scenario: the admin client creates a topic; an idempotent producer sends keyed messages with headers,
// gzip-compressed, and the offsets come back dense per partition; a transactional producer commits one
// transaction and aborts another, and a consume-transform-produce transaction commits a group's offsets
// with its output (sendOffsets: AddOffsetsToTxn, TxnOffsetCommit); a read_committed group reads every
// committed message back identical and none of the aborted; the group's offsets, description and
// deletion, then the topic's. Every step asserts what came back. Ends with `N passed, M failed`; exit 1
// on failure.
'use strict'
const assert = require('assert')
const { Kafka, logLevel, CompressionTypes } = require('kafkajs')

const bootstrap = process.argv[2]
if (!bootstrap) {
  console.error('usage: node compat/kafkajs_check.js HOST:PORT (or through compat/with_broker.sh)')
  process.exit(2)
}
const suffix = Math.floor(Math.random() * (1 << 30))
const topic = `kjs_check_${suffix}`
const out = `kjs_out_${suffix}`
const group = `kjs_group_${suffix}`
const PARTITIONS = 3
const PER_BATCH = 50
const BATCHES = 6
const TIMEOUT_MS = 60000
process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1'
const kafka = new Kafka({ clientId: 'rokka-kafkajs-check', brokers: [bootstrap], logLevel: logLevel.NOTHING })
const admin = kafka.admin()
let consumed = new Map() // "topic/partition/offset" -> {key, value, headers}: what the group read

function valueOf(m) {
  const headers = {}
  for (const [k, v] of Object.entries(m.headers || {})) headers[k] = v.toString()
  return { key: m.key.toString(), value: m.value.toString(), headers }
}

async function consumeAll(groupId, topics, until) {
  const consumer = kafka.consumer({ groupId, readUncommitted: false })
  const got = new Map()
  await consumer.connect()
  try {
    for (const t of topics) await consumer.subscribe({ topic: t, fromBeginning: true })
    await new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, TIMEOUT_MS)
      consumer.run({
        eachMessage: async ({ topic: t, partition, message }) => {
          got.set(`${t}/${partition}/${message.offset}`, valueOf(message))
          if (until(got)) { clearTimeout(timer); resolve() }
        },
      }).catch(reject)
    })
  } finally {
    await consumer.disconnect()
  }
  return got
}

const steps = [
  [`create a topic of ${PARTITIONS} partitions`, async () => {
    await admin.connect()
    assert.strictEqual(await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS }, { topic: out, numPartitions: 1 }], waitForLeaders: true }), true)
    const md = await admin.fetchTopicMetadata({ topics: [topic] })
    assert.deepStrictEqual(md.topics[0].partitions.map(p => p.partitionId).sort(), [0, 1, 2])
  }],
  ['idempotent producer, gzip, keyed with headers: dense offsets from 0', async () => {
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 })
    await producer.connect()
    try {
      for (let b = 0; b < BATCHES; b++) {
        const messages = []
        for (let i = b * PER_BATCH; i < (b + 1) * PER_BATCH; i++)
          messages.push({ key: `key-${i % 11}`, value: `value ${i} `.repeat(1 + i % 4), headers: { n: String(i) } })
        const results = await producer.send({ topic, messages, acks: -1, compression: CompressionTypes.GZIP })
        for (const r of results) assert.strictEqual(r.errorCode, 0, `partition ${r.partition}: error ${r.errorCode}`)
      }
    } finally {
      await producer.disconnect()
    }
    const offsets = await admin.fetchTopicOffsets(topic)
    const total = offsets.reduce((n, p) => n + Number(p.high) - Number(p.low), 0)
    assert.strictEqual(total, BATCHES * PER_BATCH, `high - low over partitions ${JSON.stringify(offsets)}`)
  }],
  ['transactions: one committed, one aborted, one consume-transform-produce with sendOffsets', async () => {
    const tp = kafka.producer({ transactionalId: `kjs-txn-${suffix}`, idempotent: true, maxInFlightRequests: 1 })
    await tp.connect()
    try {
      let t = await tp.transaction()
      await t.send({ topic, messages: [{ key: 'txn', value: 'committed-1', headers: { n: 'c1' } }, { key: 'txn', value: 'committed-2', headers: { n: 'c2' } }] })
      await t.commit()
      t = await tp.transaction()
      await t.send({ topic, messages: [{ key: 'txn', value: 'aborted-1', headers: { n: 'a1' } }] })
      await t.abort()
      t = await tp.transaction()
      await t.send({ topic: out, messages: [{ key: 'ctp', value: 'derived', headers: { n: 'd' } }] })
      await t.sendOffsets({ consumerGroupId: `${group}-ctp`, topics: [{ topic, partitions: [{ partition: 0, offset: '7' }] }] })
      await t.commit()
    } finally {
      await tp.disconnect()
    }
    const committed = await admin.fetchOffsets({ groupId: `${group}-ctp`, topics: [topic] })
    const p0 = committed[0].partitions.find(p => p.partition === 0)
    assert.strictEqual(p0.offset, '7', `the transaction's offset commit: ${JSON.stringify(committed)}`)
  }],
  ['a read_committed group reads every committed message identical, none aborted', async () => {
    const expected = BATCHES * PER_BATCH + 2
    const got = await consumeAll(group, [topic], g => g.size >= expected)
    consumed = got
    const values = [...got.values()]
    assert.strictEqual(got.size, expected, `read ${got.size} of ${expected}`)
    for (let i = 0; i < BATCHES * PER_BATCH; i++) {
      const v = values.find(x => x.headers.n === String(i))
      assert.ok(v, `message ${i} missing`)
      assert.deepStrictEqual(v, { key: `key-${i % 11}`, value: `value ${i} `.repeat(1 + i % 4), headers: { n: String(i) } })
    }
    assert.ok(values.some(v => v.value === 'committed-1') && values.some(v => v.value === 'committed-2'), 'committed transaction missing')
    assert.ok(!values.some(v => v.value === 'aborted-1'), 'an aborted message was delivered')
    // the idempotent producer's messages came first: in each partition they hold offsets 0..n-1
    let total = 0
    for (let p = 0; p < PARTITIONS; p++) {
      const offs = [...got.entries()].filter(([k, v]) => k.startsWith(`${topic}/${p}/`) && /^[0-9]+$/.test(v.headers.n))
        .map(([k]) => Number(k.split('/')[2])).sort((a, b) => a - b)
      assert.deepStrictEqual(offs, offs.map((_, i) => i), `partition ${p}: offsets not dense from 0`)
      total += offs.length
    }
    assert.strictEqual(total, BATCHES * PER_BATCH)
  }],
  ["the group's committed offsets: after each partition's last message read; describe, delete", async () => {
    // kafkajs commits the offset after the last message it handed over (past markers and aborted batches
    // only when a whole fetched batch holds nothing else)
    const committed = await admin.fetchOffsets({ groupId: group, topics: [topic] })
    for (let p = 0; p < PARTITIONS; p++) {
      const last = Math.max(...[...consumed.keys()].filter(k => k.startsWith(`${topic}/${p}/`)).map(k => Number(k.split('/')[2])))
      const c = committed[0].partitions.find(x => x.partition === p)
      assert.strictEqual(c.offset, String(last + 1), `partition ${p}: committed ${c.offset}, last read ${last}`)
    }
    const { groups } = await admin.describeGroups([group])
    assert.deepStrictEqual([groups[0].errorCode, groups[0].state, groups[0].protocolType], [0, 'Empty', 'consumer'])
    await admin.deleteGroups([group, `${group}-ctp`])
    const listed = (await admin.listGroups()).groups.map(g => g.groupId)
    assert.ok(!listed.includes(group), `${group} still listed`)
  }],
  ['delete the topics', async () => {
    await admin.deleteTopics({ topics: [topic, out] })
    const deadline = Date.now() + TIMEOUT_MS
    let left
    do {
      left = (await admin.listTopics()).filter(t => t === topic || t === out)
      if (left.length) await new Promise(r => setTimeout(r, 500))
    } while (left.length && Date.now() < deadline)
    assert.deepStrictEqual(left, [])
  }],
]

async function main() {
  console.log(`kafkajs ${require('kafkajs/package.json').version} against ${bootstrap}, topic ${topic}`)
  let passed = 0
  let failed = 0
  for (const [name, step] of steps) {
    try {
      await step()
      passed++
      console.log(`PASS ${name}`)
    } catch (e) {
      failed++
      console.log(`FAIL ${name}\n     ${String(e && e.stack || e).replace(/\n/g, '\n     ')}`)
    }
  }
  await admin.disconnect().catch(() => {})
  console.log(`${passed} passed, ${failed} failed`)
  process.exit(failed ? 1 : 0)
}
main()
