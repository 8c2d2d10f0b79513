#include "streaming/kinesis_source.h"
