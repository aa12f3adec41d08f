// Reads an Iceberg table with icebird (an independent JavaScript reader) for tests/e2e/test_iceberg_append.py and
// prints JSON: the rows, the current snapshot's summary, and the manifests of the current snapshot.
//   node icebird_read.mjs <s3 endpoint> <table location s3://bucket/path> <metadata file name>
// icebird turns s3://bucket/key into https://bucket.s3.amazonaws.com/key; the fetch below sends those requests to
// the test's s3rver instead (path-style, anonymous), so nothing leaves the machine.
import { icebergManifests, icebergMetadata, icebergRead } from 'icebird'

const [endpoint, tableUrl, metadataFileName] = process.argv.slice(2)
const realFetch = globalThis.fetch
globalThis.fetch = (input, init) => {
  const url = typeof input === 'string' ? input : input.url
  const m = url.match(/^https:\/\/([^./]+)\.s3\.amazonaws\.com(\/.*)$/)
  if (!m) throw new Error(`unexpected fetch outside the test: ${url}`)
  return realFetch(`${endpoint}/${m[1]}${m[2]}`, init)
}

const hex = (a) => Buffer.from(a).toString('hex')
const json = (v) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? x.toString()
  : x instanceof Date ? x.toISOString() : x instanceof Uint8Array ? hex(x) : x))
const metadata = await icebergMetadata({ tableUrl, metadataFileName })
const rows = await icebergRead({ tableUrl, metadata })
const manifests = await icebergManifests(metadata)
const current = metadata.snapshots.find(s => s['snapshot-id'] === metadata['current-snapshot-id'])
console.log(json({
  rows,
  summary: current.summary,
  snapshots: metadata.snapshots.length,
  manifests: manifests.map(m => ({ url: m.url, files: m.entries.map(e => ({
    status: e.status, path: e.data_file.file_path, records: e.data_file.record_count, partition: e.data_file.partition,
    sequence_number: e.sequence_number, value_counts: e.data_file.value_counts,
    null_value_counts: e.data_file.null_value_counts, lower_bounds: e.data_file.lower_bounds,
    upper_bounds: e.data_file.upper_bounds })) })),
}))
