"""Pure-exploration learners; importing this package registers them."""
