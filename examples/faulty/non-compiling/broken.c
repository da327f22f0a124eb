/* Faulty fixture: does not compile under any flag set. */
int kem_helper(int x)
{
    return x +;
}
