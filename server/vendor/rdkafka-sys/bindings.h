#include "librdkafka/src/rdkafka.h"
#include "librdkafka/src/rdkafka_mock.h"
