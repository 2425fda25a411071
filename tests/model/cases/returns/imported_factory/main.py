from factory import make

make().serve()
