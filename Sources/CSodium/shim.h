#ifndef SESSIONVAULT_CSODIUM_SHIM_H
#define SESSIONVAULT_CSODIUM_SHIM_H

#include <sodium.h>

#endif
