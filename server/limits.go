package server

// MaxMessageBytes is the largest gRPC message the daemon and its clients send or receive.
// grpc-go's default receive limit, 4 MB, is smaller than one real message: a write_to_file of
// a 5 MB file is shown whole in a tool ask, a command prints megabytes, a host saves a large
// file back. A message over the limit fails its whole stream with ResourceExhausted, which ends
// `cairn run`, so the limit sits well above what read_file and edits accept (20 MB). The
// extension's transport (extension/src/rpc/transport.ts) uses the same number.
const MaxMessageBytes = 64 << 20
