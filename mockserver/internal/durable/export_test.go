package durable

// SetHook installs fn to run at the named steps of Compact ("cut", "written", "renamed",
// "removed") and of each group commit ("write", "sync"); an error it returns is injected as the
// failure of that step. Set it before the log is used concurrently.
func SetHook(l *Log, fn func(step string) error) { l.hook = fn }
