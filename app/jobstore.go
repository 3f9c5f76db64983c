package app

import "time"

// The queues' stored state, as package queue reads it through its store (sqlite.DB): these
// types cross from sqlite to queue, which may not import each other.

// JobMessage is a queued message as received.
type JobMessage struct {
	ID       string
	Body     []byte
	Received int // how many times it was handed out, this delivery included
}

// DeadJob is a job that failed its last attempt or could not be run at all.
type DeadJob struct {
	ID, Queue, Kind string
	Attempts        int
	Error           string
	FailedAt        time.Time
	Body            []byte
}

// JobCounts are a queue's messages by state and its finished jobs, at one moment.
type JobCounts struct {
	Ready, Delayed, InFlight, Dead int
	DoneLastHour, FailedLastHour   int
	OldestReady                    time.Time // when the oldest ready message became ready; zero if none
}
