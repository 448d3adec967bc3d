package zenoh

import "time"

func timeNow() time.Time { return time.Now() }
