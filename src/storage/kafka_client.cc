#include "storage/kafka_client.h"
