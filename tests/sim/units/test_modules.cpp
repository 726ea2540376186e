// module tests to come
