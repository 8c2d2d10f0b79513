#include "streaming/kafka_sink.h"
