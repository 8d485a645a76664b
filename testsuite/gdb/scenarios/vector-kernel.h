/* vector-kernel.h: vector-prog's loops that the compiler vectorises. */
void scale_add(float *out, const float *in, float gain, int n);
double dot_product(const double *a, const double *b, int n);
