package plots

import (
	"encoding/binary"
	"hash/adler32"
	"io"
	"math/bits"
	"slices"
)

// zlibCompress writes src as one zlib stream (RFC 1950) holding deflate
// blocks (RFC 1951) with dynamic Huffman codes. It is a compressor for
// filtered PNG rows, which are mostly long runs: a single-candidate hash
// matcher that extends matches eight bytes at a time, and blocks of many
// tokens, so that building the codes costs little. compress/flate at
// BestSpeed spends most of its time on the codes of its 64 kB blocks and on
// extending matches a byte at a time; this does the same job several times
// faster, to a similar size.
func zlibCompress(w io.Writer, src []byte, z *deflater) error {
	z.out = append(z.out[:0], 0x78, 0x01) // deflate, 32 kB window, fastest
	z.bits, z.nbits = 0, 0
	z.compress(src)
	z.out = binary.BigEndian.AppendUint32(z.out, adler32.Checksum(src))
	_, err := w.Write(z.out)
	return err
}

// Deflate limits.
const (
	minMatch    = 4 // the matcher compares four bytes
	maxMatch    = 258
	maxDistance = 32768
	blockTokens = 1 << 16 // tokens per block
	hashBits    = 15
)

// deflater holds the buffers of zlibCompress, reused from image to image.
type deflater struct {
	table [1 << hashBits]int32 // 1 + the last position of each hash
	raw   []byte               // the filtered rows, for the caller
	toks  []token
	out   []byte
	bits  uint64
	nbits uint
	// Symbol frequencies and codes of the current block.
	litFreq  [286]int32
	distFreq [30]int32
	litLen   [286]uint8
	distLen  [30]uint8
	litCode  [286]uint16
	distCode [30]uint16
}

// token is a literal byte (dist == 0) or a match of len bytes, dist bytes
// back.
type token struct {
	len  uint16
	dist uint16
	lit  byte
}

func (z *deflater) compress(src []byte) {
	clear(z.table[:])
	z.toks = z.toks[:0]
	n := len(src)
	s := 0
	for s < n {
		if s+minMatch > n {
			z.toks = append(z.toks, token{lit: src[s]})
			s++
			continue
		}
		cur := binary.LittleEndian.Uint32(src[s:])
		h := (cur * 0x1e35a7bd) >> (32 - hashBits)
		cand := int(z.table[h]) - 1
		z.table[h] = int32(s + 1)
		if cand >= 0 && s-cand <= maxDistance && binary.LittleEndian.Uint32(src[cand:]) == cur {
			l := minMatch + matchLen(src[cand+minMatch:], src[s+minMatch:min(n, s+maxMatch)])
			z.toks = append(z.toks, token{len: uint16(l), dist: uint16(s - cand)})
			s += l
			// Index the match's last position, so that a run continues.
			if s-1+minMatch <= n {
				z.table[(binary.LittleEndian.Uint32(src[s-1:])*0x1e35a7bd)>>(32-hashBits)] = int32(s)
			}
		} else {
			z.toks = append(z.toks, token{lit: byte(cur)})
			s++
		}
		if len(z.toks) == blockTokens {
			z.writeBlock(false)
			z.toks = z.toks[:0]
		}
	}
	z.writeBlock(true)
	z.flushBits()
}

// matchLen returns the length of the common prefix of a and b, len(b) at
// most.
func matchLen(a, b []byte) int {
	n := 0
	for len(b)-n >= 8 && len(a)-n >= 8 {
		x := binary.LittleEndian.Uint64(a[n:]) ^ binary.LittleEndian.Uint64(b[n:])
		if x != 0 {
			return n + bits.TrailingZeros64(x)/8
		}
		n += 8
	}
	for n < len(b) && n < len(a) && a[n] == b[n] {
		n++
	}
	return n
}

// Length and distance codes (RFC 1951 §3.2.5).
var (
	lengthBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase    = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra   = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
	// lengthCode[l-3] is the code index (0..28) of match length l.
	lengthCode [256]uint8
	// distCodeSmall[d-1] for d ≤ 256, distCodeLarge[(d-1)>>7] beyond.
	distCodeSmall [256]uint8
	distCodeLarge [256]uint8
)

func init() {
	for c := range 28 {
		for l := lengthBase[c]; l < lengthBase[c]+1<<lengthExtra[c]; l++ {
			lengthCode[l-3] = uint8(c)
		}
	}
	lengthCode[255] = 28 // 258
	for c := range 30 {
		for d := int(distBase[c]); d < int(distBase[c])+1<<distExtra[c]; d++ {
			if d <= 256 {
				distCodeSmall[d-1] = uint8(c)
			} else {
				distCodeLarge[(d-1)>>7] = uint8(c)
			}
		}
	}
}

func distCodeOf(d int) int {
	if d <= 256 {
		return int(distCodeSmall[d-1])
	}
	return int(distCodeLarge[(d-1)>>7])
}

// codeLengthOrder is the order of the code length code lengths.
var codeLengthOrder = [19]int{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// writeBlock writes z.toks as one block with dynamic codes.
func (z *deflater) writeBlock(final bool) {
	clear(z.litFreq[:])
	clear(z.distFreq[:])
	for _, t := range z.toks {
		if t.dist == 0 {
			z.litFreq[t.lit]++
		} else {
			z.litFreq[257+int(lengthCode[t.len-3])]++
			z.distFreq[distCodeOf(int(t.dist))]++
		}
	}
	z.litFreq[256] = 1 // end of block
	// Decoders want complete codes: give each alphabet two symbols at least.
	atLeastTwo(z.litFreq[:])
	atLeastTwo(z.distFreq[:])
	huffmanLengths(z.litLen[:], z.litFreq[:], 15)
	huffmanLengths(z.distLen[:], z.distFreq[:], 15)
	canonicalCodes(z.litCode[:], z.litLen[:])
	canonicalCodes(z.distCode[:], z.distLen[:])

	nlit := 286
	for nlit > 257 && z.litLen[nlit-1] == 0 {
		nlit--
	}
	ndist := 30
	for ndist > 1 && z.distLen[ndist-1] == 0 {
		ndist--
	}
	// Run-length encode the code lengths of both alphabets together.
	var all [286 + 30]uint8
	n := copy(all[:], z.litLen[:nlit])
	n += copy(all[n:], z.distLen[:ndist])
	type clSym struct{ sym, extra uint8 }
	var cls []clSym
	var clFreq [19]int32
	for i := 0; i < n; {
		l := all[i]
		run := 1
		for i+run < n && all[i+run] == l {
			run++
		}
		i += run
		if l == 0 {
			for run >= 11 {
				k := min(run, 138)
				cls = append(cls, clSym{18, uint8(k - 11)})
				clFreq[18]++
				run -= k
			}
			if run >= 3 {
				cls = append(cls, clSym{17, uint8(run - 3)})
				clFreq[17]++
				run = 0
			}
		} else {
			cls = append(cls, clSym{l, 0})
			clFreq[l]++
			run--
			for run >= 3 {
				k := min(run, 6)
				cls = append(cls, clSym{16, uint8(k - 3)})
				clFreq[16]++
				run -= k
			}
		}
		for range run {
			cls = append(cls, clSym{l, 0})
			clFreq[l]++
		}
	}
	atLeastTwo(clFreq[:])
	var clLen [19]uint8
	var clCode [19]uint16
	huffmanLengths(clLen[:], clFreq[:], 7)
	canonicalCodes(clCode[:], clLen[:])
	nclen := 19
	for nclen > 4 && clLen[codeLengthOrder[nclen-1]] == 0 {
		nclen--
	}

	header := uint64(2 << 1) // BTYPE 10: dynamic codes
	if final {
		header |= 1
	}
	z.writeBits(header, 3)
	z.writeBits(uint64(nlit-257), 5)
	z.writeBits(uint64(ndist-1), 5)
	z.writeBits(uint64(nclen-4), 4)
	for _, s := range codeLengthOrder[:nclen] {
		z.writeBits(uint64(clLen[s]), 3)
	}
	for _, c := range cls {
		z.writeBits(uint64(clCode[c.sym]), uint(clLen[c.sym]))
		switch c.sym {
		case 16:
			z.writeBits(uint64(c.extra), 2)
		case 17:
			z.writeBits(uint64(c.extra), 3)
		case 18:
			z.writeBits(uint64(c.extra), 7)
		}
	}
	for _, t := range z.toks {
		if t.dist == 0 {
			z.writeBits(uint64(z.litCode[t.lit]), uint(z.litLen[t.lit]))
			continue
		}
		lc := int(lengthCode[t.len-3])
		z.writeBits(uint64(z.litCode[257+lc]), uint(z.litLen[257+lc]))
		z.writeBits(uint64(t.len-lengthBase[lc]), uint(lengthExtra[lc]))
		dc := distCodeOf(int(t.dist))
		z.writeBits(uint64(z.distCode[dc]), uint(z.distLen[dc]))
		z.writeBits(uint64(t.dist-distBase[dc]), uint(distExtra[dc]))
	}
	z.writeBits(uint64(z.litCode[256]), uint(z.litLen[256]))
}

// writeBits appends the n low bits of b, least significant first.
func (z *deflater) writeBits(b uint64, n uint) {
	z.bits |= b << z.nbits
	z.nbits += n
	if z.nbits >= 32 {
		z.out = binary.LittleEndian.AppendUint32(z.out, uint32(z.bits))
		z.bits >>= 32
		z.nbits -= 32
	}
}

// flushBits writes the pending bits, padded to a byte.
func (z *deflater) flushBits() {
	for n := int(z.nbits); n > 0; n -= 8 {
		z.out = append(z.out, byte(z.bits))
		z.bits >>= 8
	}
	z.bits, z.nbits = 0, 0
}

// atLeastTwo gives the first symbols a frequency of 1 until two symbols
// have one, so that a code has two codes at least (a complete code).
func atLeastTwo(freq []int32) {
	used := 0
	for _, f := range freq {
		if f > 0 {
			used++
		}
	}
	for i := 0; used < 2; i++ {
		if freq[i] == 0 {
			freq[i] = 1
			used++
		}
	}
}

// huffmanLengths sets lengths[i] to the code length of symbol i, zero for
// unused symbols, no longer than maxBits: a Huffman code, lengthened where
// it exceeds maxBits and then made complete again.
func huffmanLengths(lengths []uint8, freq []int32, maxBits int) {
	type node struct {
		w      int64
		parent int32
	}
	clear(lengths)
	var syms []int
	for i, f := range freq {
		if f > 0 {
			syms = append(syms, i)
		}
	}
	slices.SortStableFunc(syms, func(a, b int) int { return int(freq[a] - freq[b]) })
	n := len(syms)
	nodes := make([]node, n, 2*n)
	for i, s := range syms {
		nodes[i] = node{w: int64(freq[s]), parent: -1}
	}
	// Two queues: leaves in order, internal nodes in creation order.
	leaf, inner := 0, n
	pick := func() int {
		if leaf < n && (inner >= len(nodes) || nodes[leaf].w <= nodes[inner].w) {
			leaf++
			return leaf - 1
		}
		inner++
		return inner - 1
	}
	for range n - 1 {
		a, b := pick(), pick()
		nodes = append(nodes, node{w: nodes[a].w + nodes[b].w, parent: -1})
		nodes[a].parent = int32(len(nodes) - 1)
		nodes[b].parent = int32(len(nodes) - 1)
	}
	// Depths, from the root down: a parent comes after its children.
	depth := make([]int, len(nodes))
	for i := len(nodes) - 2; i >= 0; i-- {
		depth[i] = depth[nodes[i].parent] + 1
	}
	for i, s := range syms {
		lengths[s] = uint8(min(depth[i], maxBits))
	}
	// Clamping may overflow the Kraft sum: lengthen the longest codes
	// below maxBits until it fits, then shorten the longest codes while
	// there is room, to complete the code.
	kraft := func() int {
		k := 0
		for _, s := range syms {
			k += 1 << (maxBits - int(lengths[s]))
		}
		return k
	}
	k := kraft()
	for k > 1<<maxBits {
		best := -1
		for _, s := range syms {
			if int(lengths[s]) < maxBits && (best < 0 || lengths[s] > lengths[best]) {
				best = s
			}
		}
		k -= 1 << (maxBits - int(lengths[best]) - 1)
		lengths[best]++
	}
	for k < 1<<maxBits {
		best := -1
		for _, s := range syms { // the longest code that fits the gap
			if lengths[s] > 1 && 1<<(maxBits-int(lengths[s])) <= 1<<maxBits-k && (best < 0 || lengths[s] > lengths[best]) {
				best = s
			}
		}
		if best < 0 {
			break
		}
		k += 1 << (maxBits - int(lengths[best]))
		lengths[best]--
	}
}

// canonicalCodes sets codes[i] to the canonical code of length lengths[i],
// bit-reversed for writing least significant bit first.
func canonicalCodes(codes []uint16, lengths []uint8) {
	var count [16]int
	for _, l := range lengths {
		count[l]++
	}
	count[0] = 0
	var next [16]int
	code := 0
	for l := 1; l < 16; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
	}
	for i, l := range lengths {
		if l == 0 {
			codes[i] = 0
			continue
		}
		codes[i] = bits.Reverse16(uint16(next[l])) >> (16 - l)
		next[l]++
	}
}
