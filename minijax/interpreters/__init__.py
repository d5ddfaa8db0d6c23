"""One module per transformation: ad (jvp, transpose), batching, partial_eval, lowering."""
