"""Scheduling: requests, priority policies, the scheduler loop, batching, worker placement."""
