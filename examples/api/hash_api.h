/* NGCC hash interface (declaration as published). */
#ifndef NGCC_EX_HASH_API_H
#define NGCC_EX_HASH_API_H

int CryptHash(int digest_len_bits, const unsigned char *msg, unsigned long long msg_len_bits,
              unsigned char *digest);

#endif
