int dev;
