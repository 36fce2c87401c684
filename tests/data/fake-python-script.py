#!/usr/bin/env python3
# A script the memcheck tests run through the fake sanitizer.
print("hello from the script")
