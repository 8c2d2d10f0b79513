// Filled by the test broker work (issue 20).
int main() { return 1; }
