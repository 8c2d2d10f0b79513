// Filled by the Kinesis work (issue 20).
