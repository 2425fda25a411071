from shop.cart import Cart

Cart().total()
