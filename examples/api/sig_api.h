/* NGCC signature interface (declarations as published). sig_verify: 0 = accept. */
#ifndef NGCC_EX_SIG_API_H
#define NGCC_EX_SIG_API_H

unsigned long long sig_get_pk_len_bytes(void);
unsigned long long sig_get_sk_len_bytes(void);
unsigned long long sig_get_sn_len_bytes(void);
int sig_keygen(unsigned char *pk, unsigned long long *pk_len, unsigned char *sk,
               unsigned long long *sk_len);
int sig_sign(unsigned char *sk, unsigned long long sk_len, unsigned char *m,
             unsigned long long m_len, unsigned char *sn, unsigned long long *sn_len);
int sig_verify(unsigned char *pk, unsigned long long pk_len, unsigned char *sn,
               unsigned long long sn_len, unsigned char *m, unsigned long long m_len);

#endif
