#include "streaming/kafka_source.h"
