"""Search: what a question asks for, hybrid retrieval over the index, abstention when the library does not hold it."""
