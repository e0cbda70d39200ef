int foo;
