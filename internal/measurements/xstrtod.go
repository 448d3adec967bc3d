package measurements

import "math"

// maxIntDigits is the number of leading digits xstrtod gathers in a 32-bit
// unsigned integer before it switches to float arithmetic (one more than
// its max_int_decimal_digits, because its loop tests before counting).
const maxIntDigits = 9

// ParseLatency converts a latency field to a float64 exactly as the pandas
// CSV reader used by the Fast-RTPS scripts did (pandas' "legacy" xstrtod,
// its default until pandas 1.3): digits are accumulated into a float, then
// scaled by powers of ten by repeated squaring. That is not always the
// correctly rounded value (it can be one unit in the last place off), but
// it is the value the Fast-RTPS summaries were computed from, and with it
// their published summaries are reproduced to the last printed digit.
// strconv.ParseFloat, or today's pandas, print e.g. a max jitter of 49.543
// where Fast-RTPS published 49.544.
//
// The field must be a plain decimal: optional sign, digits, optional
// fraction, optional exponent. ok is false for anything else (including
// NaN and Inf spellings, empty fields and trailing garbage), and for a
// value that does not read as a finite float64.
func ParseLatency(b []byte) (v float64, ok bool) {
	p := 0
	n := len(b)
	neg := false
	if p < n && (b[p] == '-' || b[p] == '+') {
		neg = b[p] == '-'
		p++
	}
	var iNumber uint32
	digits := 0
	for p < n && isDigit(b[p]) && digits < maxIntDigits {
		iNumber = iNumber*10 + uint32(b[p]-'0')
		p++
		digits++
	}
	number := float64(iNumber)
	if digits == maxIntDigits {
		for p < n && isDigit(b[p]) {
			number = number*10 + float64(b[p]-'0')
			p++
			digits++
		}
	}
	exponent := 0
	if p < n && b[p] == '.' {
		p++
		decimals := 0
		for p < n && isDigit(b[p]) {
			number = number*10 + float64(b[p]-'0')
			p++
			digits++
			decimals++
		}
		exponent -= decimals
	}
	if digits == 0 {
		return 0, false
	}
	if neg {
		number = -number
	}
	if p < n && (b[p] == 'e' || b[p] == 'E') {
		e, q, ok := readExponent(b, p)
		if !ok {
			return 0, false
		}
		exponent += e
		p = q
	}
	if p != n {
		return 0, false
	}
	// DBL_MIN_EXP and DBL_MAX_EXP, the bounds xstrtod checks.
	if exponent < -1021 || exponent > 1024 {
		return 0, false
	}
	number = scaleXstrtod(number, exponent)
	// Too many digits overflow the accumulated number (pandas then reads
	// inf, or NaN once scaled down by an overflowed power of ten): neither is
	// a latency.
	if math.IsInf(number, 0) || math.IsNaN(number) {
		return 0, false
	}
	return number, true
}

// readExponent reads the exponent that starts at b[p] ('e' or 'E'): an
// optional sign and digits, its magnitude gathered up to just past 10^6
// (far beyond the bounds ParseLatency checks). It returns the exponent,
// the index after it, and false when no digit follows.
func readExponent(b []byte, p int) (e, next int, ok bool) {
	q, n := p+1, len(b)
	neg := false
	if q < n && (b[q] == '-' || b[q] == '+') {
		neg = b[q] == '-'
		q++
	}
	digits := 0
	for q < n && isDigit(b[q]) {
		if e < 1e6 {
			e = e*10 + int(b[q]-'0')
		}
		q++
		digits++
	}
	if neg {
		e = -e
	}
	return e, q, digits > 0
}

// maxExactDigits is the most digits whose value, gathered one digit at a
// time as xstrtod does (in a uint32, then number*10 + digit in a float64),
// is exactly the integer they spell: 10^15 < 2^53, so every step is exact.
// parseCommonRow gathers that many in an integer and gets the same float.
const maxExactDigits = 15

// scaleXstrtod multiplies number by 10^exponent as xstrtod does, by powers
// of ten built by repeated squaring, each applied in turn (not rounded
// once, so not always the correctly rounded value).
func scaleXstrtod(number float64, exponent int) float64 {
	p10 := 10.0
	e := max(exponent, -exponent)
	for e != 0 {
		if e&1 != 0 {
			if exponent < 0 {
				number /= p10
			} else {
				number *= p10
			}
		}
		e >>= 1
		p10 *= p10
	}
	return number
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
