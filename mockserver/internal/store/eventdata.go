package store

// patientEvent is the thin payload of patient events: the id only, never PHI.
func patientEvent(id string) any {
	return struct {
		Object string `json:"object"`
		ID     string `json:"id"`
	}{"patient", id}
}
