// tests/sh/host_crash.sh: a C++ exception nobody catches (std::out_of_range
// from vector::at in pick, i = 7): std::terminate, abort, SIGABRT in libc.
#include <cstdio>
#include <vector>

static int pick(const std::vector<int> &v, int i)
{
	return v.at(i); // MARK_THROW
}

int main()
{
	std::vector<int> v(3);
	std::printf("host_throw\n");
	std::fflush(stdout);
	return pick(v, 7);
}
