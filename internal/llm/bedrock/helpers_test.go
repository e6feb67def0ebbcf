package bedrock

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
)

func fixPreludeCRC(b []byte) {
	binary.BigEndian.PutUint32(b[8:12], crc32.ChecksumIEEE(b[:8]))
}

func asFormat(err error, fe **formatError) bool { return errors.As(err, fe) }
