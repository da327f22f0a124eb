/* NGCC KEM interface (declarations as published; included by KEM_AlgorithmInstance.h). */
#ifndef NGCC_EX_KEM_API_H
#define NGCC_EX_KEM_API_H

unsigned long long kem_get_pk_len_bytes(void);
unsigned long long kem_get_sk_len_bytes(void);
unsigned long long kem_get_ss_len_bytes(void);
unsigned long long kem_get_ct_len_bytes(void);
int kem_keygen(unsigned char *pk, unsigned long long *pk_len, unsigned char *sk,
               unsigned long long *sk_len);
int kem_enc(unsigned char *pk, unsigned long long pk_len, unsigned char *ss,
            unsigned long long *ss_len, unsigned char *ct, unsigned long long *ct_len);
int kem_dec(unsigned char *sk, unsigned long long sk_len, unsigned char *ct,
            unsigned long long ct_len, unsigned char *ss, unsigned long long *ss_len);

#endif
