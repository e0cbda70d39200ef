int inode;
