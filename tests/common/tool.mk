# The rules of a test program built from one C file with bsg_uring.h:
# set TOOL (the program's name) and include this. "make check" runs the
# program's test-args.sh on its ASan/UBSan build.
CC ?= cc
CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -Werror -std=gnu11 -I../common
SAN_FLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

all: $(TOOL)

$(TOOL): $(TOOL).c ../common/bsg_uring.h
	$(CC) $(CFLAGS) -o $@ $< $(LDFLAGS)

# Sanitizer build, used by the host-side argument tests.
$(TOOL)-san: $(TOOL).c ../common/bsg_uring.h
	$(CC) $(CFLAGS) $(SAN_FLAGS) -o $@ $< $(LDFLAGS)

check: $(TOOL)-san
	./test-args.sh ./$(TOOL)-san

clean:
	rm -f $(TOOL) $(TOOL)-san

.PHONY: all check clean
