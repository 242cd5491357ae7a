package rundir

import (
	"fmt"
	"time"
)

// heartbeatPolls is how many times watchHeartbeat looks at a manifest, pollSleep apart; the
// watch lasts staleAfter in all. Tests replace pollSleep.
const heartbeatPolls = 12

var pollSleep = time.Sleep

// watchHeartbeat judges whether the run of another host whose manifest at path read m is dead
// by watching its heartbeat from here, comparing no clocks: a run that beats rewrites its
// heartbeat every HeartbeatInterval, so one whose heartbeat (or status, PID or host) does not
// change while this host's clock advances by staleAfter is dead. Its clock may be off by any
// amount. It blocks for up to staleAfter, which only a lock that looks stale costs.
func watchHeartbeat(path string, m *Manifest) (dead bool, why string) {
	first := beatOf(m)
	for i := 0; i < heartbeatPolls; i++ {
		pollSleep(StaleAfter / heartbeatPolls)
		now, err := ReadManifestAt(path)
		if err != nil {
			return false, "" // being rewritten, or replaced: not dead
		}
		if beatOf(now) != first {
			return false, ""
		}
	}
	who := fmt.Sprintf("pid %d on host %s", m.PID, m.Host)
	return true, fmt.Sprintf("its heartbeat did not change while this host watched it for %s (%s; its clock may differ from this one's)", StaleAfter, who)
}

// beatOf is what changes while a run beats.
func beatOf(m *Manifest) string {
	hb := ""
	if m.Heartbeat != nil {
		hb = m.Heartbeat.Format(time.RFC3339Nano)
	}
	return fmt.Sprintf("%s\x00%d\x00%s\x00%s\x00%d", m.Status, m.PID, m.Host, hb, m.CellsDone)
}

// manifestAppears watches, for staleAfter, whether the holder li of a shard lock (of another
// host, its clock possibly far off) writes its manifest at path: a shard still loading its
// inputs has none yet, so a lock that only looks old is not taken over before this watch.
func manifestAppears(path string, li LockInfo) bool {
	for i := 0; i < heartbeatPolls; i++ {
		pollSleep(StaleAfter / heartbeatPolls)
		if m, err := ReadManifestAt(path); err == nil && m.PID == li.PID && m.Host == li.Host {
			return true
		}
	}
	return false
}
