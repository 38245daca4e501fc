package bus

// SetWatching makes b tell f of each watch's iterator: f gets what stops
// it, as the client library sometimes does under a live watch.
func SetWatching(b *Bus, f func(stop func()) (done func())) { b.watching = f }
