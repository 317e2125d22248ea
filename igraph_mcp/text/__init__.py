"""Text utilities shared by the index, the embedders, retrieval and resources."""
